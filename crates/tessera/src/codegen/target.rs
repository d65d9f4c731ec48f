//! `Target`: the machine generated code is for — x86-64 with a CPU name, an LLVM feature
//! string and the natural vector width — detected from the host or written out explicitly.
//! Every generated function carries the CPU and features as attributes, so code is tuned for
//! the target whatever engine or target machine compiles it.

use std::fmt;

use inkwell::targets::TargetMachine;

/// The instruction set architecture (only x86-64 for now).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arch {
    X86_64,
}

/// The machine code is compiled for (Halide's `Target`): `Target::host()` for this one.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    /// The instruction set architecture.
    pub arch: Arch,
    /// LLVM's CPU name (`znver4`, `skylake-avx512`, `x86-64`).
    pub cpu: String,
    /// LLVM's feature string (`+avx2,+fma,-avx512f,...`).
    pub features: String,
    /// The widest vector registers, in bits (128, 256 or 512).
    pub vector_bits: u32,
    /// Whether a float multiply feeding an add or subtract may be fused into one multiply-add,
    /// rounded once (Halide's default; off in Tessera). Faster, but which operations meet
    /// depends on what the schedule inlines, so results may then differ between schedules,
    /// and from the evaluator, in the last bits. Off, every schedule computes every value
    /// exactly as the evaluator does.
    pub float_contraction: bool,
    /// Checked mode: every load and store is checked against the bounds of its allocation or
    /// buffer, and one outside them fails the run with an error naming the buffer, the
    /// indices and the bounds, instead of touching memory it does not own. Slower; for
    /// tests, fuzzing and finding a bug.
    pub bounds_checks: bool,
    /// Machine code generated without optimization (LLVM's fast instruction selection and
    /// register allocation; the IR optimization passes still run, so undefined behaviour in
    /// generated IR is exploited as usual): compiles about five times faster, runs slower.
    /// For fuzzing, where compiling dominates and each pipeline runs once.
    pub fast_compile: bool,
    /// Large buffers (Halide's `Target::LargeBuffers`): input and output buffers whose
    /// elements lie 2^31 or more from their first one are accepted, and every flat index is
    /// computed in 64 bits (`lower::wide_indices`). Coordinates, extents and strides stay
    /// 32-bit, as do allocations inside the pipeline (2^31 - 1 elements each). Off, such a
    /// buffer is refused when bound, naming it. `Func::realize` and the interpreter turn it
    /// on by themselves for the sizes they are given.
    pub large_buffers: bool,
}

impl Target {
    /// The machine this process runs on.
    pub fn host() -> Target {
        let cpu = TargetMachine::get_host_cpu_name().to_string();
        let features = TargetMachine::get_host_cpu_features().to_string();
        Target::x86_64(&cpu, &features)
    }

    /// An x86-64 target with an explicit CPU and feature string; the vector width follows from
    /// the features.
    pub fn x86_64(cpu: &str, features: &str) -> Target {
        let mut target = Target {
            arch: Arch::X86_64,
            cpu: cpu.to_string(),
            features: features.to_string(),
            vector_bits: 128,
            float_contraction: false,
            bounds_checks: false,
            fast_compile: false,
            large_buffers: false,
        };
        if target.has_feature("avx512f") {
            target.vector_bits = 512;
        } else if target.has_feature("avx") {
            target.vector_bits = 256;
        }
        target
    }

    /// This target with float multiply-adds fused or not (see `float_contraction`).
    pub fn with_float_contraction(mut self, contract: bool) -> Target {
        self.float_contraction = contract;
        self
    }

    /// This target in checked mode or not (see `bounds_checks`).
    pub fn with_bounds_checks(mut self, checked: bool) -> Target {
        self.bounds_checks = checked;
        self
    }

    /// This target with unoptimized machine code or not (see `fast_compile`).
    pub fn with_fast_compile(mut self, fast: bool) -> Target {
        self.fast_compile = fast;
        self
    }

    /// This target with large buffers or not (see `large_buffers`).
    pub fn with_large_buffers(mut self, large: bool) -> Target {
        self.large_buffers = large;
        self
    }

    /// LLVM's optimization level for instruction selection and register allocation.
    pub(crate) fn machine_code_optimization(&self) -> inkwell::OptimizationLevel {
        if self.fast_compile {
            inkwell::OptimizationLevel::None
        } else {
            inkwell::OptimizationLevel::Default
        }
    }

    /// Whether the feature string enables `feature` (LLVM's name: `avx512vbmi`).
    pub fn has_feature(&self, feature: &str) -> bool {
        self.features
            .split(',')
            .any(|f| f.strip_prefix('+') == Some(feature))
    }

    /// Whether a vector gather is faster as one scalar load per lane than as the CPU's gather
    /// instruction. Measured: on AMD Zen (LLVM's `znver*`), lane by lane is faster
    /// (bilateral_grid 0.94, unsharp and pyramid_blend 0.91 of the `vgatherdps` time); on
    /// Intel Sapphire Rapids, `vgatherdps` beat scalar loads.
    pub fn prefers_scalar_gathers(&self) -> bool {
        self.cpu.starts_with("znver")
    }

    /// Baseline x86-64 (SSE2 only), which every x86-64 machine runs.
    pub fn x86_64_baseline() -> Target {
        Target::x86_64("x86-64", "")
    }

    /// The LLVM target triple.
    pub fn triple(&self) -> &'static str {
        match self.arch {
            Arch::X86_64 => "x86_64-unknown-linux-gnu",
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "x86-64 {} ({}-bit vectors", self.cpu, self.vector_bits)?;
        if self.float_contraction {
            write!(f, ", float multiply-adds fused")?;
        }
        if self.bounds_checks {
            write!(f, ", every access bounds-checked")?;
        }
        if self.fast_compile {
            write!(f, ", unoptimized machine code")?;
        }
        if self.large_buffers {
            write!(f, ", large buffers")?;
        }
        write!(f, ")")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vector_width_follows_the_features() {
        assert_eq!(
            Target::x86_64("znver4", "+avx2,+avx512f,+avx").vector_bits,
            512
        );
        assert_eq!(
            Target::x86_64("haswell", "+avx2,-avx512f,+avx").vector_bits,
            256
        );
        assert_eq!(Target::x86_64_baseline().vector_bits, 128);
        assert!(Target::host().vector_bits >= 128);
    }
}
