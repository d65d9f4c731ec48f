//! Regions narrowed by a `select`'s condition (Halide's concat): a Func read in one arm of a
//! select on comparisons of a variable is computed only where that arm is taken, wherever it
//! is computed. Native code still evaluates both arms, reading storage that covers every
//! read. Random thresholds, conditions and schedules; values checked against plain Rust (and,
//! by `check`, against the evaluator, in the interpreter and in checked native code), points
//! computed against the points the arms take.

mod lower_common;

use lower_common::{check, fuzz_seeds, TestInputs};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tessera::prelude::*;

const W: i64 = 29;
const H: i64 = 6;
/// The split of the output's x loop that `Placement::AtTile` computes producers in.
const TILE: i64 = 8;

fn f_value(x: i64, y: i64) -> i64 {
    x * 3 + y * 7
}

fn g_value(x: i64, y: i64) -> i64 {
    x * x - y * 5
}

/// A condition on the output's coordinates.
#[derive(Clone, Copy, Debug)]
enum Condition {
    /// `x < a`
    XBelow(i64),
    /// `x >= a`
    XFrom(i64),
    /// `x >= a && x < b`
    XBetween(i64, i64),
    /// `y < a`
    YBelow(i64),
}

impl Condition {
    /// Thresholds from a little before `x_min` to a little past the output.
    fn random(rng: &mut SmallRng, x_min: i64) -> Condition {
        let kind = rng.random_range(0..4);
        let mut x_threshold = || rng.random_range(x_min - 3..=x_min + W + 3);
        match kind {
            0 => Condition::XBelow(x_threshold()),
            1 => Condition::XFrom(x_threshold()),
            2 => Condition::XBetween(x_threshold(), x_threshold()),
            _ => Condition::YBelow(x_threshold() - x_min - W / 2),
        }
    }

    fn expr(self, x: Var, y: Var) -> Expr {
        match self {
            Condition::XBelow(a) => x.lt(a as i32),
            Condition::XFrom(a) => x.ge(a as i32),
            Condition::XBetween(a, b) => x.ge(a as i32).and(x.lt(b as i32)),
            Condition::YBelow(a) => y.lt(a as i32),
        }
    }

    /// Whether the condition's failing narrows anything: that of a conjunction is a
    /// disjunction, whose hull is in general the whole range (as in Halide).
    fn failing_narrows(self) -> bool {
        !matches!(self, Condition::XBetween(..))
    }

    fn holds(self, x: i64, y: i64) -> bool {
        match self {
            Condition::XBelow(a) => x < a,
            Condition::XFrom(a) => x >= a,
            Condition::XBetween(a, b) => x >= a && x < b,
            Condition::YBelow(a) => y < a,
        }
    }
}

/// Where the producers of the select's arms are computed.
#[derive(Clone, Copy, Debug)]
enum Placement {
    Root,
    /// At the output's rows.
    AtRow,
    /// At the output's points.
    AtPoint,
    /// At the outer loop of the output's x split by `TILE` (the last tile shifted inwards).
    AtTile,
    /// Stored at root, computed at the output's points (sliding along x).
    Sliding,
    /// At the output's rows, the output vectorized: both arms read as vectors.
    AtRowVectorized,
}

const PLACEMENTS: [Placement; 6] = [
    Placement::Root,
    Placement::AtRow,
    Placement::AtPoint,
    Placement::AtTile,
    Placement::Sliding,
    Placement::AtRowVectorized,
];

impl Placement {
    fn apply(self, producers: &[&Func], out: &Func, x: Var, y: Var) {
        match self {
            Placement::AtTile => {
                out.split(x, "xo", "xi", TILE as i32);
            }
            Placement::AtRowVectorized => {
                out.vectorize(x, 4);
            }
            _ => {}
        }
        for p in producers {
            match self {
                Placement::Root => {
                    p.compute_root();
                }
                Placement::AtRow | Placement::AtRowVectorized => {
                    p.compute_at(out, y);
                }
                Placement::AtPoint => {
                    p.compute_at(out, x);
                }
                Placement::AtTile => {
                    p.compute_at(out, "xo");
                }
                Placement::Sliding => {
                    p.store_root().compute_at(out, x);
                }
            }
        }
    }

    /// How many points beyond those used a producer may compute: the shifted last tile
    /// recomputes up to a tile's points in every row.
    fn overlap(self) -> u64 {
        match self {
            Placement::AtTile => (TILE * H) as u64,
            _ => 0,
        }
    }
}

/// `out(x, y) = select(condition, f(x + df, y), g(x - dg, y))` over `[x_min, x_min + W) x
/// [0, H)`: values checked against plain Rust, and f and g each computed at most over the
/// span of the points its arm takes in each row (plus the placement's overlap).
fn check_case(condition: Condition, placement: Placement, x_min: i64, df: i64, dg: i64) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x * 3 + y * 7).unwrap();
    let g = Func::new("g");
    g.define((x, y), x * x - y * 5).unwrap();
    let out = Func::new("out");
    out.define(
        (x, y),
        select(
            condition.expr(x, y),
            f.at((x + df as i32, y)),
            g.at((x - dg as i32, y)),
        ),
    )
    .unwrap();
    placement.apply(&[&f, &g], &out, x, y);
    let what = format!("{condition:?}, {placement:?}, x from {x_min}, df {df}, dg {dg}");
    let run = check(&out, &TestInputs::new(), &[x_min, 0], &[W, H]);
    let values = run.i32_values(0);
    // Per arm and row, the span from the first point taking the arm to the last: a Func is
    // computed over an interval.
    let mut spans = [0u64; 2];
    for yy in 0..H {
        let mut taking: [Vec<i64>; 2] = [Vec::new(), Vec::new()];
        for xx in x_min..x_min + W {
            let taken = condition.holds(xx, yy);
            let want = if taken {
                f_value(xx + df, yy)
            } else {
                g_value(xx - dg, yy)
            };
            assert_eq!(
                i64::from(values.get(&[xx, yy])),
                want,
                "{what}: out({xx}, {yy})"
            );
            taking[usize::from(!taken)].push(xx);
        }
        if !condition.failing_narrows() {
            taking[1] = (x_min..x_min + W).collect();
        }
        for (span, xs) in spans.iter_mut().zip(&taking) {
            if let (Some(first), Some(last)) = (xs.first(), xs.last()) {
                *span += (last - first + 1) as u64;
            }
        }
    }
    for (func, span) in ["f", "g"].into_iter().zip(spans) {
        let computed = run.provides(func);
        assert!(
            computed <= span + placement.overlap(),
            "{what}: {func} computed at {computed} points, where its arm spans {span}"
        );
    }
}

#[test]
fn random_thresholds_and_schedules() {
    let (seed, cases) = fuzz_seeds("select regions", 1, 24);
    for case in seed..seed + cases {
        let mut rng = SmallRng::seed_from_u64(case);
        let x_min = rng.random_range(-4..=4);
        let condition = Condition::random(&mut rng, x_min);
        let placement = PLACEMENTS[rng.random_range(0..PLACEMENTS.len())];
        let (df, dg) = (rng.random_range(-2..=2), rng.random_range(-2..=2));
        eprintln!("case {case}");
        check_case(condition, placement, x_min, df, dg);
    }
}

#[test]
fn every_placement_of_both_sides_of_a_threshold() {
    for placement in PLACEMENTS {
        for condition in [Condition::XBelow(10), Condition::XBetween(4, 17)] {
            check_case(condition, placement, 0, 1, 2);
        }
    }
}

/// A threshold given at run time narrows the region symbolically.
#[test]
fn a_parameter_threshold() {
    for threshold in [-3, 0, 7, W, W + 5] {
        let x = Var::new("x");
        let p = Param::<i32>::new("p");
        let f = Func::new("f");
        f.define(x, x * 3).unwrap();
        let g = Func::new("g");
        g.define(x, x * x).unwrap();
        let out = Func::new("out");
        out.define(x, select(x.lt(p.expr()), f.at(x), g.at(x + 1)))
            .unwrap();
        f.compute_root();
        g.compute_root();
        let inputs = TestInputs::new().param(p.bind(threshold as i32));
        let run = check(&out, &inputs, &[0], &[W]);
        let values = run.i32_values(0);
        for i in 0..W {
            let want = if i < threshold {
                i * 3
            } else {
                (i + 1) * (i + 1)
            };
            assert_eq!(i64::from(values.get(&[i])), want, "p {threshold}: at {i}");
        }
        let below = threshold.clamp(0, W) as u64;
        assert!(run.provides("f") <= below, "p {threshold}");
        assert!(run.provides("g") <= W as u64 - below, "p {threshold}");
    }
}

/// The narrowed region of a Func narrows its own producers' regions in turn.
#[test]
fn a_chain_of_producers_under_one_arm() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, x * 5 - 1).unwrap();
    let g = Func::new("g");
    g.define(x, f.at(x - 1) + f.at(x + 1)).unwrap();
    let out = Func::new("out");
    out.define(x, select(x.ge(20), g.at(x), x)).unwrap();
    f.compute_root();
    g.compute_root();
    let run = check(&out, &TestInputs::new(), &[0], &[W]);
    let values = run.i32_values(0);
    for i in 0..W {
        let want = if i >= 20 {
            (i - 1) * 5 - 1 + (i + 1) * 5 - 1
        } else {
            i
        };
        assert_eq!(i64::from(values.get(&[i])), want, "at {i}");
    }
    assert_eq!(run.provides("g"), (W - 20) as u64);
    assert_eq!(run.provides("f"), (W - 20 + 2) as u64);
}

/// An update reading a producer under a condition on its reduction variable.
#[test]
fn a_reduction_under_a_condition_on_its_variable() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, x * 2 + 1).unwrap();
    let out = Func::new("out");
    out.define(x, 0).unwrap();
    let r = RDom::new([(0, W as i32)]);
    out.update_add(r.x(), select(r.x().lt(11), f.at(r.x()), 100))
        .unwrap();
    f.compute_root();
    let run = check(&out, &TestInputs::new(), &[0], &[W]);
    let values = run.i32_values(0);
    for i in 0..W {
        let want = if i < 11 { i * 2 + 1 } else { 100 };
        assert_eq!(i64::from(values.get(&[i])), want, "at {i}");
    }
    assert_eq!(run.provides("f"), 11);
}

/// A condition that is not a comparison of a variable narrows nothing: the producer is
/// computed over the whole region, as before.
#[test]
fn other_conditions_keep_the_whole_region() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, x * 3).unwrap();
    let out = Func::new("out");
    out.define(x, select((x % 3).eq_(0), f.at(x), 0)).unwrap();
    f.compute_root();
    let run = check(&out, &TestInputs::new(), &[0], &[W]);
    let values = run.i32_values(0);
    for i in 0..W {
        let want = if i % 3 == 0 { i * 3 } else { 0 };
        assert_eq!(i64::from(values.get(&[i])), want, "at {i}");
    }
    assert_eq!(run.provides("f"), W as u64);
}

/// A producer split by more than its narrowed region computes a whole split, shifted inwards
/// below the region's min, as in Halide: it reads the input there (which must cover it), and
/// its values are right.
#[test]
fn a_split_producer_narrowed_below_its_factor() {
    let x = Var::new("x");
    let input = ImageParam::new(Type::i32(), 1, "input");
    let f = Func::new("f");
    f.define(x, input.at(x) * 2).unwrap();
    let out = Func::new("out");
    out.define(x, select(x.lt(3), f.at(x), 0)).unwrap();
    f.compute_root().split(x, "xo", "xi", 8);
    let image = Buffer::<i32>::from_fn(&[-5], &[W + 5], |c| c[0] as i32 * 5);
    let run = check(&out, &TestInputs::new().image(&input, image), &[0], &[W]);
    let values = run.i32_values(0);
    for i in 0..W {
        let want = if i < 3 { i * 10 } else { 0 };
        assert_eq!(i64::from(values.get(&[i])), want, "at {i}");
    }
    assert_eq!(run.provides("f"), 8);
}
