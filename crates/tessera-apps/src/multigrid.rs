//! multigrid — one V-cycle of a 2-D Poisson multigrid solver (PolyMG's Jacobi V-cycle, float64;
//! the specification is `../shared/apps/multigrid.md`). Inputs: `V` (the initial guess, whose
//! first and last rows and columns hold the Dirichlet boundary values) and `F` (the right-hand
//! side), both W × H starting at (0, 0), with W − 1 and H − 1 multiples of 8. Output: V after
//! one V-cycle, W × H.
//!
//! ```text
//! level l = 0..3:  Nx_l = (W - 1) >> l,  Ny_l = (H - 1) >> l,  invh2_l = f64(Nx_l)^2,  h2_l = 1 / invh2_l
//! interior_l(x, y) = 1 <= x <= Nx_l - 1 && 1 <= y <= Ny_l - 1
//! nb(u) = ((u(x-1, y) + u(x+1, y)) + u(x, y-1)) + u(x, y+1)
//! jacobi(u, f, l) = select(interior_l, c0*u + c1*(h2_l*f + nb(u)), u)        c0 = 1 - ω, c1 = ω/4, ω = 2/3
//! residual_l      = select(interior_l, f - (4*u - nb(u)) * invh2_l, 0)
//! restrict_x(x, y) = (r(2x-1, y) + 2*r(2x, y) + r(2x+1, y)) * 0.25;    rhs_{l+1}: the same in y
//! interp_x(x, y)   = select(x % 2 == 0, e(x/2, y), 0.5*(e(x/2, y) + e(x/2+1, y)));  interp_y: the same in y
//! vcycle(l, u0, f) = l == 3 ? jacobi^10(u0)
//!                  : u = jacobi^4(u0);  e = vcycle(l+1, zero, rhs_{l+1}(residual_l(u, f)));
//!                    jacobi^4(u + interp_y(e))
//! output = vcycle(0, repeat_edge(V), repeat_edge(F))
//! ```
//!
//! Every Func but the clamped inputs is defined over all integers; outside a level's interior
//! a Jacobi step copies its input and the residual is 0, so points off a level's grid never
//! reach points on it.
//!
//! Schedules: `manual` and `root` (every stage at root, parallel rows, natural-width vectors).
//! `manual` follows Halide's, but slides instead of recomputing halos: each smoothing group
//! (4 pre or 4 post steps of a level) is one parallel loop over row strips of its last step,
//! computed at root, with the earlier steps stored per strip and computed row by row as the
//! last step needs them (store_at the strip, compute_at its row); the residual is inlined into
//! restrict_x, computed per strip of rhs; the interpolation and correction slide with the post
//! group; the coarsest level is computed at root step by step; f64 vectors of 8 lanes. Strips
//! are 256, 128 and 64 rows at levels 0, 1 and 2. On an AVX-512 host (2026-11-30, medians of
//! alternating rounds at 2049 × 2049) sliding takes 0.83 of the time of recomputed halos at 1
//! thread and 0.76 at 2.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tessera::lang::schedule::TailStrategy;
use tessera::prelude::*;

use tessera::lang::param::ParamBinding;

use crate::app::{AppDefinition, AppPipeline};
use crate::description::{
    all_start_at_zero, extents, AppDescription, InputRule, InputSpec, Shape, TYPICAL_EVAL_BYTES,
};
use crate::schedule::{self, AppFuncs, Schedule};
use crate::synthetic;

/// Grid levels, finest (0) to coarsest.
pub const LEVELS: usize = 4;
/// Jacobi steps before and after the coarse correction, and on the coarsest level.
pub const N_PRE: usize = 4;
pub const N_POST: usize = 4;
pub const N_COARSE: usize = 10;
/// The weighted Jacobi step's coefficients: `1 - ω` and `ω / 4` for ω = 2/3, as f64.
pub const C0: f64 = 0.333_333_333_333_333_37;
pub const C1: f64 = 0.166_666_666_666_666_66;
/// W − 1 and H − 1 must be multiples of this (the grid halves `LEVELS - 1` times).
pub const GRID_MULTIPLE: i64 = 1 << (LEVELS - 1);
/// The output size the benchmarks use, `(W, H)`.
pub const DEFAULT_SIZE: (i64, i64) = (2049, 2049);

/// The Funcs of one level that is not the coarsest: its smoothing groups, the restriction of
/// its residual to the next level's right-hand side, and the interpolation of the next level's
/// correction.
pub struct LevelFuncs {
    /// `pre{l}_1 .. pre{l}_4`.
    pub pre: Vec<Func>,
    pub residual: Func,
    pub restrict_x: Func,
    /// The next level's right-hand side, `rhs{l+1}`.
    pub rhs: Func,
    pub interp_x: Func,
    pub interp_y: Func,
    pub correct: Func,
    /// `post{l}_1 .. post{l}_4`; level 0's last is the output.
    pub post: Vec<Func>,
}

/// The Funcs of the multigrid V-cycle.
pub struct MultigridFuncs {
    /// The input `V`.
    pub v: ImageParam,
    /// The input `F`.
    pub f: ImageParam,
    pub v_clamped: Func,
    pub f_clamped: Func,
    /// The zero initial guess of the coarser levels.
    pub zero: Func,
    /// Levels 0 .. LEVELS − 2.
    pub levels: Vec<LevelFuncs>,
    /// `coarse3_1 .. coarse3_10`, the coarsest level's smoothing.
    pub coarse: Vec<Func>,
}

impl MultigridFuncs {
    /// The last post-smoothing step of level 0, which the pipeline outputs.
    pub fn output(&self) -> &Func {
        self.levels[0]
            .post
            .last()
            .expect("internal error: level 0 has post-smoothing steps")
    }
}

/// The grid of one level: its size and spacing, as expressions of the inputs' extents.
struct Grid {
    nx: Expr,
    ny: Expr,
    invh2: Expr,
    h2: Expr,
}

impl Grid {
    fn level(v: &ImageParam, l: usize) -> Grid {
        let scale = 1 << l;
        let (nx, ny) = ((v.extent(0) - 1) / scale, (v.extent(1) - 1) / scale);
        let nx_f64 = cast_to::<f64>(nx.clone());
        // f64(Nx * Nx) computed in f64, which is exact and cannot overflow i32.
        let invh2 = nx_f64.clone() * nx_f64;
        let h2 = 1.0f64 / invh2.clone();
        Grid { nx, ny, invh2, h2 }
    }

    /// Whether (x, y) is an interior point, marked as the likely case.
    fn interior(&self, x: Var, y: Var) -> Expr {
        let inside = x
            .ge(1)
            .and(x.le(self.nx.clone() - 1))
            .and(y.ge(1))
            .and(y.le(self.ny.clone() - 1));
        likely(inside)
    }
}

/// `nb(u)` at (x, y): the sum of the four neighbours, in the spec's order.
fn neighbours(u: &Func, x: Var, y: Var) -> Expr {
    ((u.at((x - 1, y)) + u.at((x + 1, y))) + u.at((x, y - 1))) + u.at((x, y + 1))
}

/// One weighted Jacobi step named `name` on `grid`, smoothing `u` with right-hand side `f`.
fn jacobi(name: &str, u: &Func, f: &Func, grid: &Grid) -> Result<Func> {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let step = Func::new(name);
    let smoothed = C0 * u.at((x, y)) + C1 * (grid.h2.clone() * f.at((x, y)) + neighbours(u, x, y));
    step.define((x, y), select(grid.interior(x, y), smoothed, u.at((x, y))))?;
    Ok(step)
}

/// `steps` Jacobi steps from `u0`, named `{prefix}_1 ..`.
fn smooth(prefix: &str, steps: usize, u0: &Func, f: &Func, grid: &Grid) -> Result<Vec<Func>> {
    let mut chain: Vec<Func> = Vec::with_capacity(steps);
    for k in 1..=steps {
        let u = chain.last().unwrap_or(u0);
        let step = jacobi(&format!("{prefix}_{k}"), u, f, grid)?;
        chain.push(step);
    }
    Ok(chain)
}

/// The Funcs of the descent through level `l`: its pre-smoothing, residual and restriction.
struct Descent {
    pre: Vec<Func>,
    residual: Func,
    restrict_x: Func,
    rhs: Func,
}

fn descend(l: usize, u0: &Func, f: &Func, grid: &Grid) -> Result<Descent> {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let pre = smooth(&format!("pre{l}"), N_PRE, u0, f, grid)?;
    let u = pre.last().expect("internal error: N_PRE > 0");
    let residual = Func::new(&format!("residual{l}"));
    let defect = f.at((x, y)) - (4.0f64 * u.at((x, y)) - neighbours(u, x, y)) * grid.invh2.clone();
    residual.define((x, y), select(grid.interior(x, y), defect, 0.0f64))?;
    let restrict_x = Func::new(&format!("restrict_x{l}"));
    restrict_x.define(
        (x, y),
        (residual.at((2 * x - 1, y))
            + 2.0f64 * residual.at((2 * x, y))
            + residual.at((2 * x + 1, y)))
            * 0.25f64,
    )?;
    let rhs = Func::new(&format!("rhs{}", l + 1));
    rhs.define(
        (x, y),
        (restrict_x.at((x, 2 * y - 1))
            + 2.0f64 * restrict_x.at((x, 2 * y))
            + restrict_x.at((x, 2 * y + 1)))
            * 0.25f64,
    )?;
    Ok(Descent {
        pre,
        residual,
        restrict_x,
        rhs,
    })
}

/// `select(c % 2 == 0, e(c/2), 0.5*(e(c/2) + e(c/2 + 1)))` with `at(k)` reading e at index k
/// along the interpolated dimension.
fn interpolated(c: Var, at: impl Fn(Expr) -> Expr) -> Expr {
    let half = c / 2;
    let even = at(half.clone());
    let between = 0.5f64 * (at(half.clone()) + at(half + 1));
    select((c % 2).eq_(0), even, between)
}

/// The algorithm.
pub fn funcs() -> Result<MultigridFuncs> {
    let v = ImageParam::new(Type::f64(), 2, "V");
    let f = ImageParam::new(Type::f64(), 2, "F");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let v_clamped = repeat_edge(&v);
    let f_clamped = repeat_edge(&f);
    let zero = Func::new("zero");
    zero.define((x, y), 0.0f64)?;
    let grids: Vec<Grid> = (0..LEVELS).map(|l| Grid::level(&v, l)).collect();

    let mut descents: Vec<Descent> = Vec::with_capacity(LEVELS - 1);
    for (l, grid) in grids.iter().enumerate().take(LEVELS - 1) {
        let (u0, f_l) = match descents.last() {
            None => (&v_clamped, &f_clamped),
            Some(coarser_of) => (&zero, &coarser_of.rhs),
        };
        let descent = descend(l, u0, f_l, grid)?;
        descents.push(descent);
    }
    let coarsest = LEVELS - 1;
    let coarse_f = &descents.last().expect("internal error: LEVELS > 1").rhs;
    let coarse = smooth(
        &format!("coarse{coarsest}"),
        N_COARSE,
        &zero,
        coarse_f,
        &grids[coarsest],
    )?;

    // The right-hand side of each level: F, then each restriction.
    let right_hand_sides: Vec<Func> = std::iter::once(f_clamped.clone())
        .chain(descents.iter().map(|d| d.rhs.clone()))
        .collect();
    // Ascend: each level corrects its smoothed guess with the next level's result.
    let mut levels: Vec<LevelFuncs> = Vec::with_capacity(LEVELS - 1);
    let mut e = coarse.last().expect("internal error: N_COARSE > 0").clone();
    for (l, descent) in descents.into_iter().enumerate().rev() {
        let interp_x = Func::new(&format!("interp_x{l}"));
        interp_x.define((x, y), interpolated(x, |k| e.at((k, y.expr()))))?;
        let interp_y = Func::new(&format!("interp_y{l}"));
        interp_y.define((x, y), interpolated(y, |k| interp_x.at((x.expr(), k))))?;
        let correct = Func::new(&format!("correct{l}"));
        let u = descent.pre.last().expect("internal error: N_PRE > 0");
        correct.define((x, y), u.at((x, y)) + interp_y.at((x, y)))?;
        let post = smooth(
            &format!("post{l}"),
            N_POST,
            &correct,
            &right_hand_sides[l],
            &grids[l],
        )?;
        e = post.last().expect("internal error: N_POST > 0").clone();
        levels.push(LevelFuncs {
            pre: descent.pre,
            residual: descent.residual,
            restrict_x: descent.restrict_x,
            rhs: descent.rhs,
            interp_x,
            interp_y,
            correct,
            post,
        });
    }
    levels.reverse();
    Ok(MultigridFuncs {
        v,
        f,
        v_clamped,
        f_clamped,
        zero,
        levels,
        coarse,
    })
}

/// f64 lanes per vector in `manual` (one 512-bit register).
const VECTOR: i32 = 8;
/// Rows per parallel strip of the smoothing groups of levels 0, 1 and 2 in `manual`: eight
/// strips per level at the default size, so that each strip's warm-up rows (2 per step) are
/// few and two threads still balance (64 to 512 rows at level 0 measured alike).
const STRIPS: [i32; LEVELS - 1] = [256, 128, 64];
/// The f64 lanes `root` vectorizes with (`schedule::parallel_vectorized`'s natural width).
const ROOT_VECTOR: i64 = crate::schedule::natural_vector_width(Type::f64()) as i64;

pub const SCHEDULES: &[Schedule<MultigridFuncs>] = &[
    Schedule {
        name: "manual",
        min_output: (VECTOR as i64, 1),
        apply: manual,
    },
    Schedule {
        name: "root",
        min_output: (ROOT_VECTOR, 1),
        apply: schedule::root,
    },
];

/// `f` computed at root in parallel strips of `rows` rows (the last strip guarded, so any
/// height fits), vectorized over x.
fn root_strips(f: &Func, rows: i32) {
    f.compute_root()
        .split_with_tail("y", "yo", "yi", rows, TailStrategy::GuardWithIf)
        .parallel("yo")
        .vectorize("x", VECTOR);
}

/// `group`'s last Func in parallel strips of `rows` rows; the others (and `extra`, computed
/// first) slide down each strip: stored per strip, each row computed once, as the last
/// Func's row needs it (a smoothing step reads three rows, so recomputing each strip's halo
/// instead costs 2 rows per step and strip).
fn sliding_group(group: &[Func], extra: &[&Func], rows: i32) {
    let (last, earlier) = group
        .split_last()
        .expect("internal error: a smoothing group has steps");
    root_strips(last, rows);
    for f in extra.iter().copied().chain(earlier) {
        f.store_at(last, "yo")
            .compute_at(last, "yi")
            .vectorize("x", VECTOR);
    }
}

/// Per level, each smoothing group one parallel loop over strips of its last step, the
/// earlier steps sliding down the strip; the restriction per strip of the next level's
/// right-hand side (the residual inlined into it), the interpolation and correction sliding
/// with the post-smoothing group; the coarsest level at root, step by step. (Halide's
/// schedule recomputes each strip's halo instead of sliding: 20-30% slower here.)
pub fn manual(p: &MultigridFuncs) {
    for (level, rows) in p.levels.iter().zip(STRIPS) {
        sliding_group(&level.pre, &[], rows);
        sliding_group(
            &level.post,
            &[&level.interp_x, &level.interp_y, &level.correct],
            rows,
        );
        root_strips(&level.rhs, rows / 2);
        level
            .restrict_x
            .compute_at(&level.rhs, "yo")
            .vectorize("x", VECTOR);
    }
    for step in &p.coarse {
        root_strips(step, STRIPS[LEVELS - 2]);
    }
}

/// Checks that an image `name` of `extents` (x, y) follows the size rule: W − 1 and H − 1
/// positive multiples of `GRID_MULTIPLE`.
fn check_extents(name: &str, extents: &[i64]) -> Result<[i64; 2]> {
    let fits = |e: i64| e > 1 && (e - 1) % GRID_MULTIPLE == 0;
    match *extents {
        [w, h] if fits(w) && fits(h) => Ok([w, h]),
        [w, h] => Err(Error::Buffer(format!(
            "multigrid input {name} is {w} x {h}, but W - 1 and H - 1 must be positive multiples of {GRID_MULTIPLE} (e.g. 2049 x 2049): the grid halves {} times",
            LEVELS - 1
        ))),
        _ => Err(Error::Buffer(format!(
            "multigrid input {name} must be two-dimensional (x, y), but it has extents {extents:?}"
        ))),
    }
}

/// The output extents `[W, H]` for inputs `v` and `f`, or an error naming the input that breaks
/// a rule: two-dimensional, starting at (0, 0), W − 1 and H − 1 positive multiples of 8, and F
/// the size of V.
pub fn check_inputs(v: &Buffer<f64>, f: &Buffer<f64>) -> Result<[i64; 2]> {
    for (name, image) in [("V", v), ("F", f)] {
        check_extents(name, &image.extents())?;
        if image.mins() != [0, 0] {
            return Err(Error::Buffer(format!(
                "multigrid input {name} must start at (0, 0), but it starts at {:?}",
                image.mins()
            )));
        }
    }
    if f.extents() != v.extents() {
        return Err(Error::Buffer(format!(
            "multigrid input F ({:?}) must have the extents of V ({:?})",
            f.extents(),
            v.extents()
        )));
    }
    check_extents("V", &v.extents())
}

/// The extents of each input (V and F) for a `width × height` output: the same.
pub fn input_extents(width: i64, height: i64) -> [i64; 2] {
    [width, height]
}

/// The output extents for inputs of `input_extents`: the same, once they follow the size rule.
pub fn output_extents(input_extents: [i64; 2]) -> Result<[i64; 2]> {
    check_extents("V", &input_extents)
}

/// Whether V's (input 0's) W − 1 and H − 1 are positive multiples of `GRID_MULTIPLE`.
fn grid_halves(inputs: &[AnyBuffer]) -> bool {
    check_extents("V", &extents(&inputs[0])).is_ok()
}

/// Whether F (input 1) has V's extents.
fn same_extents(inputs: &[AnyBuffer]) -> bool {
    extents(&inputs[1]) == extents(&inputs[0])
}

pub const DESCRIPTION: AppDescription = AppDescription {
    name: "multigrid",
    summary: "one V-cycle of a 2-D Poisson multigrid solver, 4 levels, f64",
    inputs: &[
        InputSpec {
            name: "V",
            ty: Type::f64(),
            shape: Shape::Plane,
            description: "f64 initial guess with the boundary values, W × H, W − 1 and H − 1 multiples of 8",
        },
        InputSpec {
            name: "F",
            ty: Type::f64(),
            shape: Shape::Plane,
            description: "f64 right-hand side, V's extents",
        },
    ],
    rules: &[
        InputRule {
            input: "V",
            rule: "V and F must start at (0, 0)",
            holds: all_start_at_zero,
        },
        InputRule {
            input: "V",
            rule: "W - 1 and H - 1 must be positive multiples of 8 (e.g. 2049 x 2049): the grid halves 3 times",
            holds: grid_halves,
        },
        InputRule {
            input: "F",
            rule: "F must have V's extents",
            holds: same_extents,
        },
    ],
    output: Shape::Plane,
    params: &[],
    default_size: DEFAULT_SIZE,
    eval_bytes_per_pixel: TYPICAL_EVAL_BYTES,
};

pub struct Multigrid;

impl AppFuncs for MultigridFuncs {
    fn pipeline(&self) -> AppPipeline {
        AppPipeline {
            output: self.output().clone(),
            inputs: vec![self.v.clone(), self.f.clone()],
        }
    }
}

impl AppDefinition for Multigrid {
    type Funcs = MultigridFuncs;
    fn description(&self) -> &AppDescription {
        &DESCRIPTION
    }
    fn funcs(&self) -> Result<MultigridFuncs> {
        funcs()
    }
    fn schedules(&self) -> &[Schedule<MultigridFuncs>] {
        SCHEDULES
    }
    fn output_extents(&self, input_extents: &[Vec<i64>]) -> Option<Vec<i64>> {
        let v = input_extents.first()?;
        check_extents("V", v).ok().map(|e| e.to_vec())
    }
    fn default_inputs(&self, width: i64, height: i64) -> Result<Vec<AnyBuffer>> {
        let (v, f) = default_inputs(width, height)?;
        Ok(vec![v.into(), f.into()])
    }
    fn reference(&self, inputs: &[AnyBuffer], _params: &[ParamBinding]) -> Result<AnyBuffer> {
        let [v, f] = inputs else {
            return Err(Error::Buffer(format!(
                "multigrid takes 2 inputs, not {}",
                inputs.len()
            )));
        };
        Ok(reference(&v.clone().try_into()?, &f.clone().try_into()?)?.into())
    }
}

/// The noise added to the interior of the default initial guess.
const NOISE: f64 = 0.1;

/// The default inputs `(V, F)` for a `width × height` output: the problem whose solution is
/// u = sin(πx)·sin(πy) + x² + y² on the grid of spacing h = 1 / (W − 1) (in both directions):
/// V is u on the boundary and u plus uniform noise inside, F = −Δu = 2π²·sin(πx)·sin(πy) − 4.
pub fn default_inputs(width: i64, height: i64) -> Result<(Buffer<f64>, Buffer<f64>)> {
    let extents = output_extents(input_extents(width, height))?;
    let h = 1.0 / (extents[0] - 1) as f64;
    let pi = std::f64::consts::PI;
    let coords = |c: &[i64]| (c[0] as f64 * h, c[1] as f64 * h);
    let solution = |(x, y): (f64, f64)| (pi * x).sin() * (pi * y).sin() + x * x + y * y;
    let mut rng = SmallRng::seed_from_u64(synthetic::DEFAULT_SEED);
    let boundary =
        |c: &[i64]| c[0] == 0 || c[1] == 0 || c[0] == extents[0] - 1 || c[1] == extents[1] - 1;
    let v = Buffer::try_from_fn(&[0, 0], &extents, |c| {
        let u = solution(coords(c));
        if boundary(c) {
            u
        } else {
            u + rng.random_range(-NOISE..=NOISE)
        }
    })?;
    let f = Buffer::try_from_fn(&[0, 0], &extents, |c| {
        let (x, y) = coords(c);
        2.0 * pi * pi * (pi * x).sin() * (pi * y).sin() - 4.0
    })?;
    Ok((v, f))
}

/// One level's values on its own grid, `(nx + 1) × (ny + 1)` points, x fastest.
#[derive(Clone)]
struct LevelGrid {
    nx: i64,
    ny: i64,
    values: Vec<f64>,
}

impl LevelGrid {
    fn from_fn(nx: i64, ny: i64, mut value: impl FnMut(i64, i64) -> f64) -> LevelGrid {
        let values = (0..=ny)
            .flat_map(|y| (0..=nx).map(move |x| (x, y)))
            .map(|(x, y)| value(x, y))
            .collect();
        LevelGrid { nx, ny, values }
    }
    fn at(&self, x: i64, y: i64) -> f64 {
        self.values[(y * (self.nx + 1) + x) as usize]
    }
    /// The value at (x, y), or 0 off the grid (how the residual is read by the restriction).
    fn at_or_zero(&self, x: i64, y: i64) -> f64 {
        if (0..=self.nx).contains(&x) && (0..=self.ny).contains(&y) {
            self.at(x, y)
        } else {
            0.0
        }
    }
    fn interior(&self, x: i64, y: i64) -> bool {
        (1..self.nx).contains(&x) && (1..self.ny).contains(&y)
    }
    fn neighbours(&self, x: i64, y: i64) -> f64 {
        ((self.at(x - 1, y) + self.at(x + 1, y)) + self.at(x, y - 1)) + self.at(x, y + 1)
    }
    /// `1/h²` on this grid.
    fn invh2(&self) -> f64 {
        (self.nx as f64) * (self.nx as f64)
    }
}

fn reference_jacobi(u: &LevelGrid, f: &LevelGrid) -> LevelGrid {
    let h2 = 1.0 / u.invh2();
    LevelGrid::from_fn(u.nx, u.ny, |x, y| {
        if u.interior(x, y) {
            C0 * u.at(x, y) + C1 * (h2 * f.at(x, y) + u.neighbours(x, y))
        } else {
            u.at(x, y)
        }
    })
}

fn reference_residual(u: &LevelGrid, f: &LevelGrid) -> LevelGrid {
    LevelGrid::from_fn(u.nx, u.ny, |x, y| {
        if u.interior(x, y) {
            f.at(x, y) - (4.0 * u.at(x, y) - u.neighbours(x, y)) * u.invh2()
        } else {
            0.0
        }
    })
}

/// Full-weighting restriction of the residual `r` to the grid of half its size.
fn reference_restrict(r: &LevelGrid) -> LevelGrid {
    let weigh = |a: f64, b: f64, c: f64| (a + 2.0 * b + c) * 0.25;
    // restrict_x at coarse x and fine y, for fine y from -1 to ny + 1.
    let restrict_x = |x: i64, y: i64| {
        weigh(
            r.at_or_zero(2 * x - 1, y),
            r.at_or_zero(2 * x, y),
            r.at_or_zero(2 * x + 1, y),
        )
    };
    LevelGrid::from_fn(r.nx / 2, r.ny / 2, |x, y| {
        weigh(
            restrict_x(x, 2 * y - 1),
            restrict_x(x, 2 * y),
            restrict_x(x, 2 * y + 1),
        )
    })
}

/// Bilinear interpolation of the coarse correction `e` to the grid of twice its size.
fn reference_interpolate(e: &LevelGrid) -> LevelGrid {
    let between = |c: i64, at: &dyn Fn(i64) -> f64| {
        if c % 2 == 0 {
            at(c / 2)
        } else {
            0.5 * (at(c / 2) + at(c / 2 + 1))
        }
    };
    let interp_x = LevelGrid::from_fn(2 * e.nx, e.ny, |x, y| between(x, &|k| e.at(k, y)));
    LevelGrid::from_fn(2 * e.nx, 2 * e.ny, |x, y| {
        between(y, &|k| interp_x.at(x, k))
    })
}

fn reference_smooth(steps: usize, u0: LevelGrid, f: &LevelGrid) -> LevelGrid {
    (0..steps).fold(u0, |u, _| reference_jacobi(&u, f))
}

fn reference_vcycle(l: usize, u0: LevelGrid, f: &LevelGrid) -> LevelGrid {
    if l == LEVELS - 1 {
        return reference_smooth(N_COARSE, u0, f);
    }
    let u = reference_smooth(N_PRE, u0, f);
    let coarse_f = reference_restrict(&reference_residual(&u, f));
    let zero = LevelGrid::from_fn(coarse_f.nx, coarse_f.ny, |_, _| 0.0);
    let e = reference_interpolate(&reference_vcycle(l + 1, zero, &coarse_f));
    let corrected = LevelGrid::from_fn(u.nx, u.ny, |x, y| u.at(x, y) + e.at(x, y));
    reference_smooth(N_POST, corrected, f)
}

/// The finest level's grid holding `image`'s values.
fn level_grid(image: &Buffer<f64>) -> LevelGrid {
    LevelGrid::from_fn(image.width() - 1, image.height() - 1, |x, y| {
        image.get(&[x, y])
    })
}

/// One V-cycle in plain Rust loops, each level stored on its own grid (the spec's equivalent
/// formulation), for inputs `check_inputs` accepts.
pub fn reference(v: &Buffer<f64>, f: &Buffer<f64>) -> Result<Buffer<f64>> {
    let extents = check_inputs(v, f)?;
    let out = reference_vcycle(0, level_grid(v), &level_grid(f));
    Buffer::try_from_fn(&[0, 0], &extents, |c| out.at(c[0], c[1]))
}

/// The root mean square of the residual `f + Δu` over the interior points of the finest grid,
/// for inputs `check_inputs` accepts.
pub fn rms_residual(u: &Buffer<f64>, f: &Buffer<f64>) -> Result<f64> {
    check_inputs(u, f)?;
    let residual = reference_residual(&level_grid(u), &level_grid(f));
    let points = (residual.nx - 1) * (residual.ny - 1);
    let squares: f64 = residual.values.iter().map(|r| r * r).sum();
    Ok((squares / points.max(1) as f64).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tessera::pipeline::{run_interp, Compiled, Inputs, Pipeline};
    use tessera::Target;

    /// The spec's tolerance: 1e-4 of the largest output magnitude.
    const TOLERANCE: f64 = 1e-4;

    /// Panics unless `got` has `want`'s region and is within `TOLERANCE` of it.
    fn assert_close(got: &AnyBuffer, want: &Buffer<f64>, context: &str) {
        let got: Buffer<f64> = got.clone().try_into().expect("an f64 output");
        assert_eq!(
            (got.mins(), got.extents()),
            (want.mins(), want.extents()),
            "{context}"
        );
        let largest = want.data().iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let worst = got
            .data()
            .iter()
            .zip(want.data())
            .map(|(g, w)| (g - w).abs())
            .fold(0.0f64, f64::max);
        assert!(
            worst <= TOLERANCE * largest,
            "differs from the reference by {worst:e} (largest {largest}); {context}"
        );
    }

    /// Random inputs of `w × h` from a fixed seed: V and F uniform in [-1, 1] and [-50, 50].
    fn random_inputs(w: i64, h: i64, seed: u64) -> (Buffer<f64>, Buffer<f64>) {
        let mut rng = SmallRng::seed_from_u64(seed);
        let v = Buffer::from_fn(&[0, 0], &[w, h], |_| rng.random_range(-1.0..=1.0));
        let f = Buffer::from_fn(&[0, 0], &[w, h], |_| rng.random_range(-50.0..=50.0));
        (v, f)
    }

    fn bind(p: &MultigridFuncs, v: &Buffer<f64>, f: &Buffer<f64>) -> Inputs {
        Inputs::new().image(&p.v, v.clone()).image(&p.f, f.clone())
    }

    fn error_of<T>(r: Result<T>) -> String {
        r.err().map(|e| e.to_string()).unwrap_or_default()
    }

    #[test]
    fn inputs_breaking_the_rules_are_refused_naming_the_input() {
        let (v, f) = random_inputs(17, 9, 1);
        assert_eq!(check_inputs(&v, &f), Ok([17, 9]));
        let (v10, _) = random_inputs(10, 9, 1);
        let e = error_of(check_inputs(&v10, &f));
        assert!(
            e.contains("input V is 10 x 9") && e.contains("multiples of 8"),
            "{e}"
        );
        let (_, f25) = random_inputs(17, 25, 1);
        let e = error_of(check_inputs(&v, &f25));
        assert!(
            e.contains("input F ([17, 25]) must have the extents of V"),
            "{e}"
        );
        let e = error_of(check_inputs(&v, &f.clone().translated(&[1, 0])));
        assert!(e.contains("input F must start at (0, 0)"), "{e}");
        let e = error_of(output_extents([1, 9]));
        assert!(e.contains("input V is 1 x 9"), "{e}");
        assert!(default_inputs(100, 100).is_err());
    }

    #[test]
    fn reference_keeps_the_boundary_and_an_exact_solution() {
        // u = x + 2y is harmonic, and the discrete Laplacian of a linear function is exactly 0:
        // with F = 0 every step leaves it unchanged (up to rounding).
        let linear = Buffer::from_fn(&[0, 0], &[17, 25], |c| (c[0] + 2 * c[1]) as f64);
        let zero = Buffer::from_fn(&[0, 0], &[17, 25], |_| 0.0);
        let out = reference(&linear, &zero).expect("the reference runs");
        let worst = out
            .data()
            .iter()
            .zip(linear.data())
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(worst < 1e-9, "{worst}");
        let (v, f) = random_inputs(17, 9, 2);
        let out = reference(&v, &f).expect("the reference runs");
        for c in [[0, 0], [16, 3], [5, 0], [7, 8]] {
            assert_eq!(out.get(&c), v.get(&c), "the boundary at {c:?} moved");
        }
    }

    /// A freshly built pipeline with schedule `s`, compiled for `target`.
    fn compiled(s: &Schedule<MultigridFuncs>, target: &Target) -> (Compiled, MultigridFuncs) {
        let p = funcs().expect("the algorithm builds");
        (s.apply)(&p);
        let compiled = Pipeline::new(p.output())
            .compile_jit(target)
            .expect("compiles");
        (compiled, p)
    }

    #[test]
    fn every_schedule_matches_the_reference_checked_and_interpreted() {
        // Odd sizes (W − 1 and H − 1 multiples of 8): no extent is a multiple of a vector or
        // strip; 17 × 9 gives a coarsest grid of 3 × 2 points.
        let sizes = [(17, 9), (41, 33)];
        let checked = Target::host().with_bounds_checks(true);
        for s in SCHEDULES {
            let (compiled, p) = compiled(s, &checked);
            for (k, &(w, h)) in sizes.iter().enumerate() {
                assert!(w >= s.min_output.0 && h >= s.min_output.1);
                let (v, f) = random_inputs(w, h, 0x36 + k as u64);
                let want = reference(&v, &f).expect("the reference runs");
                let inputs = bind(&p, &v, &f);
                let context = format!("schedule {}, {w} x {h}", s.name);
                let got = compiled.realize(&inputs, &[0, 0], &[w, h]).expect(&context);
                assert_close(&got[0], &want, &format!("{context} (checked JIT)"));
                if k == 0 {
                    let lowered = compiled.lowered();
                    let interp = run_interp(lowered, &lowered.stmt, &inputs, &[0, 0], &[w, h], 0)
                        .expect(&context);
                    assert_close(
                        &interp.buffers[0],
                        &want,
                        &format!("{context} (interpreter)"),
                    );
                }
            }
        }
    }

    #[test]
    fn manual_at_the_default_size_matches_the_reference_and_reduces_the_residual_100_times() {
        let (compiled, p) = compiled(&SCHEDULES[0], &Target::host());
        let (w, h) = DEFAULT_SIZE;
        let (v, f) = default_inputs(w, h).expect("the default inputs");
        let want = reference(&v, &f).expect("the reference runs");
        let got = compiled
            .realize(&bind(&p, &v, &f), &[0, 0], &[w, h])
            .expect("runs");
        assert_close(&got[0], &want, "manual, default size");
        // The spec's check of the algorithm: about 100 times (164 on this input).
        let before = rms_residual(&v, &f).expect("residual");
        let after = rms_residual(&want, &f).expect("residual");
        assert!(
            (50.0..500.0).contains(&(before / after)),
            "{before} -> {after}"
        );
    }

    #[test]
    fn the_evaluator_agrees() {
        let (v, f) = random_inputs(9, 17, 7);
        let p = funcs().expect("the algorithm builds");
        let got = Evaluator::new()
            .with_input(&p.v, v.clone())
            .with_input(&p.f, f.clone())
            .realize(p.output(), &[0, 0], &[9, 17])
            .expect("evaluates");
        assert_close(&got[0], &reference(&v, &f).expect("reference"), "evaluator");
    }
}
