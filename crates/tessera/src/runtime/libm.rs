//! The C math functions generated code calls for transcendental intrinsics (`expf`, `atan2`,
//! ...): the same libm functions Rust's `f32`/`f64` methods call, so native results equal the
//! evaluator's. The JIT maps their names to these addresses. LLVM's library-call
//! simplification may also turn a call into another libm function (`pow(2, x)` into
//! `exp2(x)`), so those are here too.

macro_rules! libm {
    ($($name:ident($($arg:ident),+) -> $t:ty;)*) => {
        extern "C" {
            $(fn $name($($arg: $t),+) -> $t;)*
        }
        /// The address of the libm function `name`, if generated code may call it.
        pub fn address(name: &str) -> Option<usize> {
            match name {
                $(stringify!($name) => Some($name as *const () as usize),)*
                _ => None,
            }
        }
    };
}

libm! {
    expf(x) -> f32; logf(x) -> f32; powf(x, y) -> f32; sinf(x) -> f32; cosf(x) -> f32;
    tanf(x) -> f32; asinf(x) -> f32; acosf(x) -> f32; atanf(x) -> f32; atan2f(y, x) -> f32;
    sinhf(x) -> f32; coshf(x) -> f32; tanhf(x) -> f32; hypotf(x, y) -> f32; exp2f(x) -> f32;
    exp(x) -> f64; log(x) -> f64; pow(x, y) -> f64; sin(x) -> f64; cos(x) -> f64;
    tan(x) -> f64; asin(x) -> f64; acos(x) -> f64; atan(x) -> f64; atan2(y, x) -> f64;
    sinh(x) -> f64; cosh(x) -> f64; tanh(x) -> f64; hypot(x, y) -> f64; exp2(x) -> f64;
}
