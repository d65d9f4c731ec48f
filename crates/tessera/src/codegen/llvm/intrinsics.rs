//! Intrinsic calls: math functions (exact ones as LLVM intrinsics; the transcendental ones as
//! calls of the same libm functions Rust's `f32`/`f64` methods use, lane by lane, so results
//! agree with the evaluator bit for bit), abs/absd, saturating casts, lerp (with float and
//! fixed-point weights), bit counts and reinterpretation, each as `eval::value::intrinsic`
//! defines it.

use std::cmp::Ordering;

use inkwell::module::Linkage;
use inkwell::types::BasicType;
use inkwell::{FloatPredicate, IntPredicate};

use super::values::{Op, Value};
use super::Codegen;
use crate::error::{Error, Result};
use crate::ir::{BinaryOp, Expr, Intrinsic, Type, TypeCode};

/// The libm function computing `op` in `bits`-bit floats (32 or 64), for the intrinsics that
/// are libm calls.
pub(crate) fn libm_function(op: Intrinsic, bits: u8) -> Option<&'static str> {
    use Intrinsic::*;
    let (single, double) = match op {
        Exp => ("expf", "exp"),
        Log => ("logf", "log"),
        Pow => ("powf", "pow"),
        Sin => ("sinf", "sin"),
        Cos => ("cosf", "cos"),
        Tan => ("tanf", "tan"),
        Asin => ("asinf", "asin"),
        Acos => ("acosf", "acos"),
        Atan => ("atanf", "atan"),
        Atan2 => ("atan2f", "atan2"),
        Sinh => ("sinhf", "sinh"),
        Cosh => ("coshf", "cosh"),
        Tanh => ("tanhf", "tanh"),
        Hypot => ("hypotf", "hypot"),
        _ => return None,
    };
    match bits {
        32 => Some(single),
        64 => Some(double),
        _ => None,
    }
}

impl<'ctx> Codegen<'ctx> {
    /// The call `op(args)` with result type `ty`.
    pub(super) fn intrinsic(
        &mut self,
        op: Intrinsic,
        args: &[Expr],
        ty: Type,
    ) -> Result<Value<'ctx>> {
        use Intrinsic::*;
        match op {
            Interleave => return self.interleave(args, ty),
            Require { message } => return self.require(message, args),
            Print { message } => return self.print(message, args),
            PromiseClamped => return self.promise_clamped(args),
            // Lowering takes tags out; one left is its value.
            MemoizeTag => return self.expr(&args[0]),
            MemoizeLookup { buffer, cache_name } => {
                return self.memoize_call(buffer, cache_name, false, args)
            }
            MemoizeStore { buffer, cache_name } => {
                return self.memoize_call(buffer, cache_name, true, args)
            }
            _ => {}
        }
        if !op.has_value() {
            return Err(Error::Codegen(format!(
                "{} has no value to compute (definitions remove it)",
                op.name()
            )));
        }
        let arity = match op {
            Pow | Atan2 | Hypot | Absd => 2,
            Lerp => 3,
            _ => 1,
        };
        if args.len() != arity {
            return Err(Error::Codegen(format!(
                "{} takes {arity} arguments, not {}",
                op.name(),
                args.len()
            )));
        }
        let values = args
            .iter()
            .map(|a| self.expr(a))
            .collect::<Result<Vec<_>>>()?;
        let (a, arg_ty) = (values[0], args[0].ty());
        let float_arg = arg_ty.is_float();
        let llvm = |cg: &Self, name: &str| cg.call_intrinsic(name, &[cg.llvm_type(arg_ty)], &[a]);
        // f16 arguments are computed in f32 and the result rounded back, as Halide does
        // (the casts are no-ops for f32 and f64).
        let libm_ty = arg_ty.with_bits(arg_ty.bits.max(32));
        if let Some(name) = libm_function(op, libm_ty.bits).filter(|_| float_arg) {
            let widened: Vec<_> = values
                .iter()
                .map(|&v| self.cast(v, arg_ty, libm_ty))
                .collect();
            let r = self.libm_call(name, &widened, libm_ty);
            return Ok(self.cast(r, libm_ty, arg_ty));
        }
        Ok(match op {
            Abs if float_arg => llvm(self, "llvm.fabs"),
            Abs if arg_ty.is_int() => {
                let poison_on_min = self.ctx.bool_type().const_zero().into();
                self.call_intrinsic("llvm.abs", &[self.llvm_type(arg_ty)], &[a, poison_on_min])
            }
            Abs | Likely | LikelyIfInnermost => a,
            Absd => self.absd(a, values[1], arg_ty, ty),
            Sqrt => llvm(self, "llvm.sqrt"),
            Floor => llvm(self, "llvm.floor"),
            Ceil => llvm(self, "llvm.ceil"),
            Round => llvm(self, "llvm.roundeven"),
            Trunc => llvm(self, "llvm.trunc"),
            IsNan | IsInf | IsFinite if !float_arg => self.int_const(ty, (op == IsFinite) as i64),
            IsNan => self.fcmp(FloatPredicate::UNO, a, a),
            IsInf | IsFinite => {
                let magnitude = llvm(self, "llvm.fabs");
                let infinity = self.float_const(arg_ty, f64::INFINITY);
                let p = if op == IsInf {
                    FloatPredicate::OEQ
                } else {
                    FloatPredicate::ONE
                };
                self.fcmp(p, magnitude, infinity)
            }
            SaturatingCast => self.saturating_cast(a, arg_ty, ty),
            Lerp if args[2].ty().is_uint() => self.fixed_point_lerp(&values, arg_ty, args[2].ty()),
            Lerp => self.lerp(a, values[1], values[2], arg_ty, args[2].ty()),
            PopCount | CountLeadingZeros | CountTrailingZeros => {
                let count = match op {
                    PopCount => llvm(self, "llvm.ctpop"),
                    _ => {
                        let name = if op == CountLeadingZeros {
                            "llvm.ctlz"
                        } else {
                            "llvm.cttz"
                        };
                        let zero_is_poison = self.ctx.bool_type().const_zero().into();
                        self.call_intrinsic(name, &[self.llvm_type(arg_ty)], &[a, zero_is_poison])
                    }
                };
                self.cast(count, arg_ty.with_code(TypeCode::UInt), ty)
            }
            Reinterpret => {
                let total = |t: Type| t.bits as u32 * t.lanes as u32;
                if total(arg_ty) != total(ty) || arg_ty.is_bool() || ty.is_bool() {
                    return Err(Error::Codegen(format!(
                        "cannot reinterpret {arg_ty} as {ty}"
                    )));
                }
                self.convert(Op::BitCast, a, self.llvm_type(ty))
            }
            _ => {
                return Err(Error::Codegen(format!(
                    "{} is not defined on {arg_ty}",
                    op.name()
                )))
            }
        })
    }

    /// `interleave(args)`: the arguments concatenated (pairwise, the last one of an odd
    /// count paired with poison), then one shuffle taking their lanes in turn.
    fn interleave(&mut self, args: &[Expr], ty: Type) -> Result<Value<'ctx>> {
        let n = args.len() as u32;
        let lanes = args.first().map_or(0, |a| a.ty().lanes as u32);
        if n < 2 || args.iter().any(|a| a.ty() != args[0].ty()) || n * lanes != ty.lanes as u32 {
            return Err(Error::Codegen(format!(
                "interleave takes two or more vectors of one type making {ty}"
            )));
        }
        let mut parts = args
            .iter()
            .map(|a| self.expr(a))
            .collect::<Result<Vec<_>>>()?;
        while parts.len() > 1 {
            let width = Self::lanes_of(parts[0]) as u32;
            let both: Vec<u32> = (0..2 * width).collect();
            parts = parts
                .chunks(2)
                .map(|pair| {
                    let second = pair.get(1).copied().unwrap_or_else(|| {
                        pair[0].get_type().into_vector_type().get_poison().into()
                    });
                    self.shuffle(pair[0], second, &both)
                })
                .collect();
        }
        let indices: Vec<u32> = (0..n * lanes).map(|i| (i % n) * lanes + i / n).collect();
        Ok(self.shuffle(parts[0], parts[0], &indices))
    }

    /// A libm function applied lane by lane.
    fn libm_call(&self, name: &str, args: &[Value<'ctx>], ty: Type) -> Value<'ctx> {
        let scalar = self.llvm_type(ty.element());
        let f = self.module.get_function(name).unwrap_or_else(|| {
            let params = vec![scalar.into(); args.len()];
            let fn_ty = scalar.fn_type(&params, false);
            self.module
                .add_function(name, fn_ty, Some(Linkage::External))
        });
        self.map_lanes(args, ty, |cg, lanes| {
            cg.call(f, lanes)
                .expect("internal error: libm returns a value")
        })
    }

    /// `|a - b|` for operands of type `ty`, as result type `result` (unsigned for integers,
    /// where the difference of n-bit operands always fits in n unsigned bits).
    fn absd(&self, a: Value<'ctx>, b: Value<'ctx>, ty: Type, result: Type) -> Value<'ctx> {
        if ty.is_float() {
            let d = self.binop(Op::FSub, a, b);
            return self.call_intrinsic("llvm.fabs", &[self.llvm_type(ty)], &[d]);
        }
        let greater = self.binary(BinaryOp::Gt, a, b, ty, None);
        let d = self.select(
            greater,
            self.binop(Op::Sub, a, b),
            self.binop(Op::Sub, b, a),
        );
        self.cast(d, ty.with_code(TypeCode::UInt), result)
    }

    /// Conversion that clamps into the range of `to` first (eval::value::saturating_cast).
    pub(super) fn saturating_cast(&self, v: Value<'ctx>, from: Type, to: Type) -> Value<'ctx> {
        // Between float types a plain conversion: a float type's range is [-inf, inf].
        if from.is_float() || to.is_float() || to.is_bool() {
            return self.cast(v, from, to);
        }
        let mut v = v;
        if from.int_max() > to.int_max() {
            let hi = self.int_const(from, to.int_max() as i64);
            let p = if from.is_int() {
                IntPredicate::SGT
            } else {
                IntPredicate::UGT
            };
            v = self.select(self.icmp(p, v, hi), hi, v);
        }
        if from.int_min() < to.int_min() {
            let lo = self.int_const(from, to.int_min() as i64);
            v = self.select(self.icmp(IntPredicate::SLT, v, lo), lo, v);
        }
        self.cast(v, from, to)
    }

    /// `a * (1 - w) + b * w` with a float weight: in the operands' float type, or for integer
    /// operands in f64, rounded half to even and converted with saturation.
    fn lerp(
        &self,
        a: Value<'ctx>,
        b: Value<'ctx>,
        w: Value<'ctx>,
        ty: Type,
        weight_ty: Type,
    ) -> Value<'ctx> {
        let compute = if ty.is_float() {
            ty
        } else {
            Type::f64().with_lanes(ty.lanes)
        };
        let (a, b) = (self.cast(a, ty, compute), self.cast(b, ty, compute));
        let w = self.cast(w, weight_ty, compute);
        let one_minus_w = self.binop(Op::FSub, self.float_const(compute, 1.0), w);
        let r = self.binop(
            Op::FAdd,
            self.binop(Op::FMul, a, one_minus_w),
            self.binop(Op::FMul, b, w),
        );
        if ty.is_float() {
            return r;
        }
        let rounded = self.call_intrinsic("llvm.roundeven", &[self.llvm_type(compute)], &[r]);
        self.cast(rounded, compute, ty)
    }

    /// eval::value's lerp of n-bit integers by an unsigned integer weight (`operands` are the
    /// two values and the weight), with Halide's fixed-point steps: the weight rescaled to n
    /// bits by one multiplication or division by a constant, the blend in 2n bits, and the
    /// division by `2^n - 1` rounding to nearest done as `(x + (x >> n)) >> n` with
    /// `x = blend + 2^(n-1)`, which is exact for every blend up to `(2^n - 1)^2`.
    fn fixed_point_lerp(&self, operands: &[Value<'ctx>], ty: Type, weight_ty: Type) -> Value<'ctx> {
        let (a, b, w) = (operands[0], operands[1], operands[2]);
        let n = ty.bits;
        let unsigned = ty.with_code(TypeCode::UInt);
        let wide = unsigned.with_bits(2 * n);
        // The ratio of the maxima is an integer: 2^k - 1 divides 2^(2k) - 1.
        let ratio = |big: Type, small: Type| (big.int_max() / small.int_max()) as i64;
        let w = match weight_ty.bits.cmp(&n) {
            Ordering::Equal => w,
            Ordering::Less => {
                let w = self.cast(w, weight_ty, unsigned);
                self.binop(
                    Op::Mul,
                    w,
                    self.int_const(unsigned, ratio(unsigned, weight_ty)),
                )
            }
            Ordering::Greater => {
                let w = self.binop(
                    Op::UDiv,
                    w,
                    self.int_const(weight_ty, ratio(weight_ty, unsigned)),
                );
                self.cast(w, weight_ty, unsigned)
            }
        };
        // Offsetting a signed value by -min flips its sign bit.
        let offset = |v| {
            if ty.is_int() {
                self.binop(Op::Xor, v, self.int_const(ty, ty.int_min() as i64))
            } else {
                v
            }
        };
        let widen = |v| self.cast(v, unsigned, wide);
        let (a, b) = (widen(offset(a)), widen(offset(b)));
        // `max - w`: the all-ones n-bit max.
        let one_minus_w = self.binop(Op::Sub, self.int_const(unsigned, -1), w);
        let blend = self.binop(
            Op::Add,
            self.binop(Op::Mul, a, widen(one_minus_w)),
            self.binop(Op::Mul, b, widen(w)),
        );
        let x = self.binop(Op::Add, blend, self.int_const(wide, 1 << (n - 1)));
        let n_bits = self.int_const(wide, n as i64);
        let high = self.binop(Op::LShr, x, n_bits);
        let quotient = self.binop(Op::LShr, self.binop(Op::Add, x, high), n_bits);
        offset(self.cast(quotient, wide, unsigned))
    }
}
