//! The parts of the automatic scheduler's space that can be switched off one at a time, to
//! measure what each is worth (the ablation of PolyMage-DP's Table 8: `tessera autoschedule
//! --without NAME,...`). Everything is on by default; a schedule found with a part off is
//! still an ordinary, correct schedule, only drawn from a smaller space.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Which parts of the space the search may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ingredients {
    /// Funcs inlined into their consumers where the cost model finds it cheaper
    /// (`Problem::decide_inlining`); off, every Func is computed and stored.
    pub inlining: bool,
    /// Groups of several Funcs computed together; off, every Func is its own group.
    pub fusion: bool,
    /// Groups computed in overlapped tiles (PolyMage).
    pub overlapped_tiles: bool,
    /// Groups computed in parallel strips, sliding a window down each (Halide).
    pub sliding_windows: bool,
    /// Tile and strip sizes refined from the coarse grid (powers of four) to neighbouring
    /// sizes that need not be powers of two; off, only the coarse grid is tried.
    pub size_refinement: bool,
    /// A Func inlined into all its consumers but one, which reads a stored copy
    /// (`Func::in_`).
    pub wrappers: bool,
    /// Funcs whose values select on a coordinate's residue computed a residue at a time.
    pub parity_unrolling: bool,
    /// Reductions whose parallelism is otherwise lost factored into partial results
    /// (`rfactor`).
    pub rfactor: bool,
    /// Funcs computed two natural vectors per step where the cost model finds it cheaper
    /// (`widths`); off, every Func is vectorized at its natural width.
    pub wide_vectors: bool,
}

impl Ingredients {
    /// Every ingredient, by the name `--without` takes.
    const NAMES: [&'static str; 9] = [
        "inlining",
        "fusion",
        "overlapped_tiles",
        "sliding_windows",
        "size_refinement",
        "wrappers",
        "parity_unrolling",
        "rfactor",
        "wide_vectors",
    ];

    /// The ingredient called `name`, to switch on or off.
    fn flag(&mut self, name: &str) -> Result<&mut bool> {
        Ok(match name {
            "inlining" => &mut self.inlining,
            "fusion" => &mut self.fusion,
            "overlapped_tiles" => &mut self.overlapped_tiles,
            "sliding_windows" => &mut self.sliding_windows,
            "size_refinement" => &mut self.size_refinement,
            "wrappers" => &mut self.wrappers,
            "parity_unrolling" => &mut self.parity_unrolling,
            "rfactor" => &mut self.rfactor,
            "wide_vectors" => &mut self.wide_vectors,
            _ => {
                return Err(Error::schedule(format!(
                    "unknown autoscheduler ingredient `{name}`: use one of {}",
                    Ingredients::NAMES.join(", ")
                )))
            }
        })
    }

    /// Every ingredient but those named in `names` (comma-separated).
    pub fn without(names: &str) -> Result<Ingredients> {
        let mut ingredients = Ingredients::default();
        for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            *ingredients.flag(name)? = false;
        }
        Ok(ingredients)
    }

    /// The names of the ingredients switched off, in `NAMES` order.
    pub fn missing(&self) -> Vec<&'static str> {
        let mut copy = *self;
        (Ingredients::NAMES.into_iter())
            .filter(|name| !*copy.flag(name).expect("NAMES are ingredients"))
            .collect()
    }
}

impl Default for Ingredients {
    fn default() -> Ingredients {
        Ingredients {
            inlining: true,
            fusion: true,
            overlapped_tiles: true,
            sliding_windows: true,
            size_refinement: true,
            wrappers: true,
            parity_unrolling: true,
            rfactor: true,
            wide_vectors: true,
        }
    }
}
