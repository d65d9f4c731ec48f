//! The exact semantics of `eval::value` for operators and casts, in LLVM instructions:
//! Euclidean integer division and modulo (x/0 = 0, x%0 = 0, INT_MIN/-1 wraps) with shift,
//! mask and multiply fast paths for constant divisors; shifts by negative or oversized
//! amounts; wrapping integer arithmetic; float min/max as selects; float→int casts that
//! truncate and saturate (NaN → 0); bool arithmetic as eval::value defines it.

use inkwell::values::{BasicValue, FastMathFlags};
use inkwell::{FloatPredicate, IntPredicate};

use super::values::{Op, Value};
use super::Codegen;
use crate::ir::{BinaryOp, Type, TypeCode, UnaryOp};

impl<'ctx> Codegen<'ctx> {
    /// `a op b` for operands of type `ty`; `divisor` is `b`'s value when it is a constant
    /// (which selects the fast paths of division, modulo and shifts).
    pub(super) fn binary(
        &self,
        op: BinaryOp,
        a: Value<'ctx>,
        b: Value<'ctx>,
        ty: Type,
        divisor: Option<i128>,
    ) -> Value<'ctx> {
        match ty.code {
            TypeCode::Float => self.float_binary(op, a, b, ty),
            TypeCode::Bool => self.bool_binary(op, a, b, ty),
            TypeCode::Int | TypeCode::UInt => self.int_binary(op, a, b, ty, divisor),
        }
    }

    fn float_binary(&self, op: BinaryOp, a: Value<'ctx>, b: Value<'ctx>, ty: Type) -> Value<'ctx> {
        use BinaryOp::*;
        let cmp = |p| self.fcmp(p, a, b);
        match op {
            Add => self.contractible(self.binop(Op::FAdd, a, b)),
            Sub => self.contractible(self.binop(Op::FSub, a, b)),
            Mul => self.contractible(self.binop(Op::FMul, a, b)),
            Div => self.binop(Op::FDiv, a, b),
            Mod => {
                // x - y * floor(x / y), each step rounded (no fused multiply-add).
                let q = self.binop(Op::FDiv, a, b);
                let floor = self.call_intrinsic("llvm.floor", &[self.llvm_type(ty)], &[q]);
                let p = self.binop(Op::FMul, b, floor);
                self.binop(Op::FSub, a, p)
            }
            Min => self.select(cmp(FloatPredicate::OLT), a, b),
            Max => self.select(cmp(FloatPredicate::OGT), a, b),
            Eq => cmp(FloatPredicate::OEQ),
            Ne => cmp(FloatPredicate::UNE),
            Lt => cmp(FloatPredicate::OLT),
            Le => cmp(FloatPredicate::OLE),
            Gt => cmp(FloatPredicate::OGT),
            Ge => cmp(FloatPredicate::OGE),
            And | Or | BitAnd | BitOr | BitXor | Shl | Shr => {
                panic!("internal error: {op:?} on floats")
            }
        }
    }

    /// `v`, marked as fusable into a multiply-add when the target allows float contraction.
    fn contractible(&self, v: Value<'ctx>) -> Value<'ctx> {
        if self.target.float_contraction {
            if let Some(i) = v.as_instruction_value() {
                i.set_fast_math_flags(FastMathFlags::AllowContract)
                    .expect("internal error: float arithmetic takes fast-math flags");
            }
        }
        v
    }

    fn bool_binary(&self, op: BinaryOp, a: Value<'ctx>, b: Value<'ctx>, ty: Type) -> Value<'ctx> {
        use BinaryOp::*;
        match op {
            And | BitAnd | Min | Mul | Div => self.binop(Op::And, a, b),
            Or | BitOr | Max => self.binop(Op::Or, a, b),
            BitXor | Ne | Add | Sub => self.binop(Op::Xor, a, b),
            Eq => self.icmp(IntPredicate::EQ, a, b),
            Lt => self.icmp(IntPredicate::ULT, a, b),
            Le => self.icmp(IntPredicate::ULE, a, b),
            Gt => self.icmp(IntPredicate::UGT, a, b),
            Ge => self.icmp(IntPredicate::UGE, a, b),
            Mod => self.zero(ty),
            Shl | Shr => {
                let not_b = self.binop(Op::Xor, b, self.int_const(ty, 1));
                self.binop(Op::And, a, not_b)
            }
        }
    }

    fn int_binary(
        &self,
        op: BinaryOp,
        a: Value<'ctx>,
        b: Value<'ctx>,
        ty: Type,
        divisor: Option<i128>,
    ) -> Value<'ctx> {
        use BinaryOp::*;
        let signed = ty.is_int();
        let pred = |s, u| if signed { s } else { u };
        let cmp = |p| self.icmp(p, a, b);
        match op {
            Add => self.binop(Op::Add, a, b),
            Sub => self.binop(Op::Sub, a, b),
            Mul => self.binop(Op::Mul, a, b),
            Div | Mod => match divisor {
                Some(c) => self.div_mod_by_constant(op == Div, a, b, ty, c),
                // x86 has no vector integer division, so this costs nothing, and it keeps
                // LLVM 19's simplifier from folding a vector division whose divisor is a select
                // with a constant arm holding a zero lane to poison, guarded lanes included.
                None if ty.is_vector() => self.map_lanes(&[a, b], ty, |cg, lanes| {
                    cg.div_mod(op == Div, lanes[0], lanes[1], ty.element())
                }),
                None => self.div_mod(op == Div, a, b, ty),
            },
            Min => self.select(cmp(pred(IntPredicate::SLT, IntPredicate::ULT)), a, b),
            Max => self.select(cmp(pred(IntPredicate::SGT, IntPredicate::UGT)), a, b),
            Eq => cmp(IntPredicate::EQ),
            Ne => cmp(IntPredicate::NE),
            Lt => cmp(pred(IntPredicate::SLT, IntPredicate::ULT)),
            Le => cmp(pred(IntPredicate::SLE, IntPredicate::ULE)),
            Gt => cmp(pred(IntPredicate::SGT, IntPredicate::UGT)),
            Ge => cmp(pred(IntPredicate::SGE, IntPredicate::UGE)),
            BitAnd => self.binop(Op::And, a, b),
            BitOr => self.binop(Op::Or, a, b),
            BitXor => self.binop(Op::Xor, a, b),
            Shl | Shr => match divisor {
                Some(c) => self.shift_by_constant(op == Shl, a, ty, c),
                None => self.shift(op == Shl, a, b, ty),
            },
            And | Or => panic!("internal error: logical {op:?} on integers"),
        }
    }

    /// Euclidean division or modulo by a constant `c`: shifts and masks for powers of two,
    /// LLVM's multiply-high sequences otherwise, plus the rounding correction.
    fn div_mod_by_constant(
        &self,
        is_div: bool,
        a: Value<'ctx>,
        b: Value<'ctx>,
        ty: Type,
        c: i128,
    ) -> Value<'ctx> {
        if c == 0 {
            return self.zero(ty);
        }
        let signed = ty.is_int();
        if c > 0 && (c as u128).is_power_of_two() {
            let k = (c as u128).trailing_zeros() as i64;
            return if is_div {
                let shift = if signed { Op::AShr } else { Op::LShr };
                self.binop(shift, a, self.int_const(ty, k))
            } else {
                // Two's complement makes the low bits the Euclidean remainder.
                self.binop(Op::And, a, self.int_const(ty, (c - 1) as i64))
            };
        }
        if !signed {
            return self.binop(if is_div { Op::UDiv } else { Op::URem }, a, b);
        }
        if c == -1 {
            return if is_div {
                self.binop(Op::Sub, self.zero(ty), a)
            } else {
                self.zero(ty)
            };
        }
        let q = self.binop(Op::SDiv, a, b);
        let r = self.binop(Op::SRem, a, b);
        let negative = self.icmp(IntPredicate::SLT, r, self.zero(ty));
        let one = self.int_const(ty, 1);
        match (is_div, c > 0) {
            (true, true) => self.select(negative, self.binop(Op::Sub, q, one), q),
            (true, false) => self.select(negative, self.binop(Op::Add, q, one), q),
            (false, true) => self.select(negative, self.binop(Op::Add, r, b), r),
            (false, false) => self.select(negative, self.binop(Op::Sub, r, b), r),
        }
    }

    /// Euclidean division or modulo by a run-time (scalar) divisor. A zero divisor divides by 1
    /// instead (then the quotient becomes 0), and INT_MIN / -1 divides INT_MIN + 1 (then the
    /// quotient gains 1, wrapping to INT_MIN): no division LLVM could see as undefined.
    fn div_mod(&self, is_div: bool, a: Value<'ctx>, b: Value<'ctx>, ty: Type) -> Value<'ctx> {
        let zero = self.zero(ty);
        let llvm_ty = self.llvm_type(ty);
        let b_is_zero = self.icmp(IntPredicate::EQ, b, zero);
        let safe = self.binop(Op::Or, b, self.convert(Op::ZExt, b_is_zero, llvm_ty));
        if !ty.is_int() {
            return if is_div {
                let q = self.binop(Op::UDiv, a, safe);
                self.select(b_is_zero, zero, q)
            } else {
                self.binop(Op::URem, a, safe)
            };
        }
        let a_is_min = self.icmp(IntPredicate::EQ, a, self.int_const(ty, ty.int_min() as i64));
        let b_is_minus_one = self.icmp(IntPredicate::EQ, b, self.int_const(ty, -1));
        let overflow = self.convert(
            Op::ZExt,
            self.binop(Op::And, a_is_min, b_is_minus_one),
            llvm_ty,
        );
        let a = self.binop(Op::Add, a, overflow);
        let q = self.binop(Op::SDiv, a, safe);
        let r = self.binop(Op::SRem, a, safe);
        let negative = self.icmp(IntPredicate::SLT, r, zero);
        let b_negative = self.icmp(IntPredicate::SLT, safe, zero);
        let one = self.int_const(ty, 1);
        if is_div {
            let q = self.binop(Op::Add, q, overflow);
            let toward = self.select(
                b_negative,
                self.binop(Op::Add, q, one),
                self.binop(Op::Sub, q, one),
            );
            let q = self.select(negative, toward, q);
            self.select(b_is_zero, zero, q)
        } else {
            let toward = self.select(
                b_negative,
                self.binop(Op::Sub, r, safe),
                self.binop(Op::Add, r, safe),
            );
            self.select(negative, toward, r)
        }
    }

    /// A shift by the constant amount `c` (negative: the other way).
    fn shift_by_constant(&self, left: bool, a: Value<'ctx>, ty: Type, c: i128) -> Value<'ctx> {
        let left = left == (c >= 0);
        let amount = c.unsigned_abs().min(ty.bits as u128) as i64;
        let bits = ty.bits as i64;
        match (left, amount >= bits, ty.is_int()) {
            (true, true, _) | (false, true, false) => self.zero(ty),
            (false, true, true) => self.binop(Op::AShr, a, self.int_const(ty, bits - 1)),
            (true, false, _) => self.binop(Op::Shl, a, self.int_const(ty, amount)),
            (false, false, signed) => {
                let op = if signed { Op::AShr } else { Op::LShr };
                self.binop(op, a, self.int_const(ty, amount))
            }
        }
    }

    /// A shift by a run-time amount: negative (signed) amounts shift the other way, amounts of
    /// the full width or more shift everything out (sign fill for signed right shifts).
    fn shift(&self, left: bool, a: Value<'ctx>, b: Value<'ctx>, ty: Type) -> Value<'ctx> {
        let zero = self.zero(ty);
        let bits = self.int_const(ty, ty.bits as i64);
        let (magnitude, negative) = if ty.is_int() {
            let negative = self.icmp(IntPredicate::SLT, b, zero);
            let negated = self.binop(Op::Sub, zero, b);
            (self.select(negative, negated, b), Some(negative))
        } else {
            (b, None)
        };
        // |INT_MIN| wraps to INT_MIN, which compares as a huge unsigned amount, as it should.
        let too_big = self.icmp(IntPredicate::UGE, magnitude, bits);
        let clamped = self.select(too_big, self.int_const(ty, ty.bits as i64 - 1), magnitude);
        let shl = self.select(too_big, zero, self.binop(Op::Shl, a, clamped));
        let shr = if ty.is_int() {
            self.binop(Op::AShr, a, clamped)
        } else {
            self.select(too_big, zero, self.binop(Op::LShr, a, clamped))
        };
        match negative {
            Some(negative) => {
                let (forward, backward) = if left { (shl, shr) } else { (shr, shl) };
                self.select(negative, backward, forward)
            }
            None if left => shl,
            None => shr,
        }
    }

    /// `op a` for an operand of type `ty`.
    pub(super) fn unary(&self, op: UnaryOp, a: Value<'ctx>, ty: Type) -> Value<'ctx> {
        match (op, ty.code) {
            (UnaryOp::Neg, TypeCode::Float) => self.fneg(a),
            // -b wraps to b in one bit.
            (UnaryOp::Neg, TypeCode::Bool) => a,
            (UnaryOp::Neg, _) => self.binop(Op::Sub, self.zero(ty), a),
            (UnaryOp::Not | UnaryOp::BitNot, TypeCode::Bool) => {
                self.binop(Op::Xor, a, self.int_const(ty, 1))
            }
            (UnaryOp::Not, TypeCode::Float) => self.fcmp(FloatPredicate::OEQ, a, self.zero(ty)),
            (UnaryOp::Not, _) => self.icmp(IntPredicate::EQ, a, self.zero(ty)),
            (UnaryOp::BitNot, TypeCode::Float) => panic!("internal error: bitwise not of a float"),
            (UnaryOp::BitNot, _) => self.binop(Op::Xor, a, self.int_const(ty, -1)),
        }
    }

    /// Conversion of `v` from type `from` to type `to` (same lanes): integers wrap, floats
    /// round to nearest, floats to integers truncate and saturate (NaN → 0), anything to bool
    /// is `!= 0`.
    pub(super) fn cast(&self, v: Value<'ctx>, from: Type, to: Type) -> Value<'ctx> {
        let to_ty = self.llvm_type(to);
        match (from.code, to.code) {
            _ if from.element() == to.element() => v,
            (TypeCode::Float, TypeCode::Bool) => self.fcmp(FloatPredicate::UNE, v, self.zero(from)),
            (_, TypeCode::Bool) => self.icmp(IntPredicate::NE, v, self.zero(from)),
            (TypeCode::Float, TypeCode::Float) => {
                let op = if to.bits > from.bits {
                    Op::FPExt
                } else {
                    Op::FPTrunc
                };
                self.convert(op, v, to_ty)
            }
            (TypeCode::Int, TypeCode::Float) => self.convert(Op::SIToFP, v, to_ty),
            (_, TypeCode::Float) => self.convert(Op::UIToFP, v, to_ty),
            // An f16 widens exactly; the bounds of every integer type but 8-bit ones are
            // past its range, so the clamp below is written in f32.
            (TypeCode::Float, _) if from.bits == 16 => {
                let wide = from.with_bits(32);
                self.float_to_int(self.cast(v, from, wide), wide, to)
            }
            (TypeCode::Float, _) => self.float_to_int(v, from, to),
            _ if to.bits == from.bits => v,
            _ if to.bits < from.bits => self.convert(Op::Trunc, v, to_ty),
            (TypeCode::Int, _) => self.convert(Op::SExt, v, to_ty),
            _ => self.convert(Op::ZExt, v, to_ty),
        }
    }

    /// Float → integer conversion that truncates and saturates (NaN → 0), the semantics of
    /// `llvm.fptosi.sat`, written as a clamp into range, a plain conversion and two selects:
    /// LLVM 19 turns a vector `fptosi.sat` on x86 into a scalar conversion and two compares
    /// per lane, while these stay vector instructions (min, max, convert, two blends).
    fn float_to_int(&self, v: Value<'ctx>, from: Type, to: Type) -> Value<'ctx> {
        let cmp = |p, c: f64| self.fcmp(p, v, self.float_const(from, c));
        // The integer type's bounds: its minimum and max + 1 are 0 or ±2^k, exact in any
        // float type; the largest float below max + 1 truncates to max or, when the float
        // has fewer bits of precision than the integer, to less.
        let lo = to.int_min() as f64;
        let above = (to.int_max() + 1) as f64;
        let below_above = if from.bits == 32 {
            f64::from(f32::from_bits((above as f32).to_bits() - 1))
        } else {
            f64::from_bits(above.to_bits() - 1)
        };
        // NaN fails the first comparison and becomes `below_above`; the select below makes
        // it 0. The clamped value is in range, so the conversion is never poison.
        let hi_const = self.float_const(from, below_above);
        let lo_const = self.float_const(from, lo);
        let clamped = self.select(cmp(FloatPredicate::OLT, below_above), v, hi_const);
        let clamped = self.select(
            self.fcmp(FloatPredicate::OGT, clamped, lo_const),
            clamped,
            lo_const,
        );
        let op = if to.is_int() { Op::FPToSI } else { Op::FPToUI };
        let mut r = self.convert(op, clamped, self.llvm_type(to));
        if (below_above as i128) < to.int_max() {
            let max = self.int_const(to, to.int_max() as i64);
            r = self.select(cmp(FloatPredicate::OGE, above), max, r);
        }
        self.select(cmp(FloatPredicate::UNO, 0.0), self.zero(to), r)
    }
}
