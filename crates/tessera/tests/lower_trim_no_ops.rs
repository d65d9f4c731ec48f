//! Trimming of no-op iterations: updates that change their point only where a condition
//! holds run their loops only over the range where it can, and the `if`s whose conditions
//! then hold throughout are gone. Random conditions (comparisons of `x`, `y` and a Param,
//! combined by `&&`, `||` and `!`) under random schedules are checked against plain Rust and
//! the evaluator.

mod lower_common;

use lower_common::{check, fuzz_seeds, walk_stmts, TestInputs};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tessera::ir::{Stmt, StmtKind};
use tessera::lang::schedule::TailStrategy;
use tessera::prelude::*;

const W: i64 = 23;
const H: i64 = 17;

/// A condition on `x`, `y` and a Param `p`.
#[derive(Clone, Debug)]
enum Condition {
    /// `a x + b y + c p  op  k`
    Compare {
        a: i32,
        b: i32,
        c: i32,
        op: Op,
        k: i32,
    },
    And(Box<Condition>, Box<Condition>),
    Or(Box<Condition>, Box<Condition>),
    Not(Box<Condition>),
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl Condition {
    fn random(rng: &mut SmallRng, depth: u32) -> Condition {
        let leaf = depth == 0 || rng.random_bool(0.4);
        if leaf {
            let ops = [Op::Lt, Op::Le, Op::Gt, Op::Ge, Op::Eq, Op::Ne];
            return Condition::Compare {
                a: rng.random_range(-3..=3),
                b: rng.random_range(-2..=2),
                c: rng.random_range(-1..=1),
                op: ops[rng.random_range(0..ops.len())],
                k: rng.random_range(-20..=40),
            };
        }
        let sub = |rng: &mut SmallRng| Box::new(Condition::random(rng, depth - 1));
        match rng.random_range(0..4) {
            0 | 1 => Condition::And(sub(rng), sub(rng)),
            2 => Condition::Or(sub(rng), sub(rng)),
            _ => Condition::Not(sub(rng)),
        }
    }

    fn expr(&self, x: Var, y: Var, p: &Param<i32>) -> Expr {
        match self {
            Condition::Compare { a, b, c, op, k } => {
                let lhs = x * *a + y * *b + p.expr() * *c;
                let k = Expr::from(*k);
                match op {
                    Op::Lt => lhs.lt(k),
                    Op::Le => lhs.le(k),
                    Op::Gt => lhs.gt(k),
                    Op::Ge => lhs.ge(k),
                    Op::Eq => lhs.eq_(k),
                    Op::Ne => lhs.ne_(k),
                }
            }
            Condition::And(l, r) => l.expr(x, y, p).and(r.expr(x, y, p)),
            Condition::Or(l, r) => l.expr(x, y, p).or(r.expr(x, y, p)),
            Condition::Not(c) => !c.expr(x, y, p),
        }
    }

    fn holds(&self, x: i64, y: i64, p: i64) -> bool {
        match self {
            Condition::Compare { a, b, c, op, k } => {
                let lhs = i64::from(*a) * x + i64::from(*b) * y + i64::from(*c) * p;
                let k = i64::from(*k);
                match op {
                    Op::Lt => lhs < k,
                    Op::Le => lhs <= k,
                    Op::Gt => lhs > k,
                    Op::Ge => lhs >= k,
                    Op::Eq => lhs == k,
                    Op::Ne => lhs != k,
                }
            }
            Condition::And(l, r) => l.holds(x, y, p) && r.holds(x, y, p),
            Condition::Or(l, r) => l.holds(x, y, p) || r.holds(x, y, p),
            Condition::Not(c) => !c.holds(x, y, p),
        }
    }
}

/// How the update's loops are scheduled.
#[derive(Clone, Copy, Debug)]
enum Schedule {
    Plain,
    Tiled,
    GuardedSplit,
    ParallelRows,
}

/// `f(x, y) = x - y`, then updated with `f(x, y) + select(c, x * y + 1, 0)` (`swap`: the
/// select's arms the other way round, under `!c`), realized over `[x0, x0 + W) x [y0, y0 + H)`
/// and checked against plain Rust. Returns the lowered statement.
fn check_case(c: &Condition, swap: bool, schedule: Schedule, (x0, y0): (i64, i64), p: i32) -> Stmt {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let param = Param::<i32>::new("p");
    let f = Func::new("f");
    f.define((x, y), x - y).unwrap();
    let cond = c.expr(x, y, &param);
    let change = x * y + 1;
    let term = if swap {
        select(!cond, change, 0)
    } else {
        select(cond, change, 0)
    };
    f.update((x, y), f.at((x, y)) + term).unwrap();
    let update = f.update_stage(0);
    match schedule {
        Schedule::Plain => {}
        Schedule::Tiled => {
            update.tile(x, y, "xo", "yo", "xi", "yi", 4, 4);
        }
        Schedule::GuardedSplit => {
            update.split_with_tail(x, "xo", "xi", 5, TailStrategy::GuardWithIf);
        }
        Schedule::ParallelRows => {
            update.parallel(y);
        }
    }
    let what = format!("{c:?} swap {swap} {schedule:?} at ({x0}, {y0}) p {p}");
    let run = check(
        &f,
        &TestInputs::new().param(param.bind(p)),
        &[x0, y0],
        &[W, H],
    );
    let values = run.i32_values(0);
    for yy in y0..y0 + H {
        for xx in x0..x0 + W {
            let changes = c.holds(xx, yy, i64::from(p)) != swap;
            let want = xx - yy + if changes { xx * yy + 1 } else { 0 };
            assert_eq!(
                i64::from(values.get(&[xx, yy])),
                want,
                "{what}: f({xx}, {yy})"
            );
        }
    }
    run.lowered.stmt.clone()
}

/// `a x + b y + c p  op  k`, boxed.
fn compare(a: i32, b: i32, c: i32, op: Op, k: i32) -> Box<Condition> {
    Box::new(Condition::Compare { a, b, c, op, k })
}

fn ifs(s: &Stmt) -> usize {
    let mut n = 0;
    walk_stmts(s, &mut |s| {
        n += usize::from(matches!(s.kind(), StmtKind::IfThenElse { .. }))
    });
    n
}

#[test]
fn random_conditions_and_schedules() {
    let (seed, cases) = fuzz_seeds("trim no-ops", 1, 100);
    let schedules = [
        Schedule::Plain,
        Schedule::Tiled,
        Schedule::GuardedSplit,
        Schedule::ParallelRows,
    ];
    for case in seed..seed + cases {
        let mut rng = SmallRng::seed_from_u64(case);
        let c = Condition::random(&mut rng, 2);
        let schedule = schedules[rng.random_range(0..schedules.len())];
        let origin = (rng.random_range(-12..=12), rng.random_range(-12..=12));
        eprintln!("case {case}");
        check_case(
            &c,
            rng.random_bool(0.5),
            schedule,
            origin,
            rng.random_range(-15..=15),
        );
    }
}

#[test]
fn a_band_and_a_line_leave_no_ifs() {
    // 3 <= x + p < 11 && y == 2 x - 4: a band in x, then a point in y per x.
    let band = Condition::And(
        compare(1, 0, 1, Op::Ge, 3),
        Box::new(Condition::And(
            compare(1, 0, 1, Op::Lt, 11),
            compare(-2, 1, 0, Op::Eq, -4),
        )),
    );
    for p in [-30, -2, 0, 5, 40] {
        for schedule in [Schedule::Plain, Schedule::ParallelRows] {
            let s = check_case(&band, false, schedule, (-3, -5), p);
            assert_eq!(ifs(&s), 0, "{schedule:?}, p {p}:\n{s}");
        }
    }
}

#[test]
fn conditions_with_disjoint_ranges_stay_guarded() {
    // x < 4 || x > 15 can hold on either side: the loop keeps the hull of both, and the `if`.
    let either_side = Condition::Or(compare(1, 0, 0, Op::Lt, 4), compare(1, 0, 0, Op::Gt, 15));
    let s = check_case(&either_side, false, Schedule::Plain, (0, 0), 0);
    assert_eq!(ifs(&s), 1, "{s}");
}

#[test]
fn a_condition_reading_the_func_stays_guarded() {
    // The update's condition reads what earlier iterations wrote: its range cannot be solved.
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, x).unwrap();
    let r = RDom::new([(1, 30)]);
    f.update(
        r.x(),
        select(f.at(r.x() - 1).lt(12), f.at(r.x() - 1) * 2, f.at(r.x())),
    )
    .unwrap();
    let run = check(&f, &TestInputs::new(), &[0], &[32]);
    let values = run.i32_values(0);
    let mut want: Vec<i64> = (0..32).collect();
    for i in 1..=30 {
        if want[i - 1] < 12 {
            want[i] = want[i - 1] * 2;
        }
    }
    for (i, w) in want.iter().enumerate() {
        assert_eq!(i64::from(values.get(&[i as i64])), *w, "f({i})");
    }
    assert_eq!(ifs(&run.lowered.stmt), 1, "{}", run.lowered.stmt);
}
