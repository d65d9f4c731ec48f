//! A type-uniform layer over inkwell's builder: IR types to LLVM types (registers and memory),
//! constants, splats, lanes, and instructions on `BasicValueEnum`s whether they are scalars or
//! vectors, so the expression compiler never tells `IntValue` from `VectorValue` apart.

use inkwell::builder::BuilderError;
use inkwell::intrinsics::Intrinsic as LlvmIntrinsic;
use inkwell::types::{AsTypeRef, BasicTypeEnum, IntType};
use inkwell::values::{
    BasicMetadataValueEnum, BasicValue, BasicValueEnum, FunctionValue, IntValue, PointerValue,
    ValueKind,
};
use inkwell::{FloatPredicate, IntPredicate};

use super::Codegen;
use crate::ir::{Type, TypeCode};

pub(super) type Value<'ctx> = BasicValueEnum<'ctx>;
pub(super) use inkwell::values::InstructionOpcode as Op;

/// Builder calls fail only when the backend misuses them (no insertion point, mismatched
/// operands): internal errors.
pub(super) trait Built<T> {
    fn built(self) -> T;
}

impl<T> Built<T> for Result<T, BuilderError> {
    fn built(self) -> T {
        self.unwrap_or_else(|e| panic!("internal error: LLVM builder: {e}"))
    }
}

impl<'ctx> Codegen<'ctx> {
    /// The register type of `ty` (bool is i1).
    pub(super) fn llvm_type(&self, ty: Type) -> BasicTypeEnum<'ctx> {
        let scalar: BasicTypeEnum<'ctx> = match ty.code {
            TypeCode::Bool => self.ctx.bool_type().into(),
            TypeCode::Int | TypeCode::UInt => self.int_type(ty.bits as u32).into(),
            TypeCode::Float if ty.bits == 16 => self.ctx.f16_type().into(),
            TypeCode::Float if ty.bits == 32 => self.ctx.f32_type().into(),
            TypeCode::Float => self.ctx.f64_type().into(),
        };
        self.vector_of(scalar, ty.lanes)
    }

    /// The integer type of `bits` bits.
    pub(super) fn int_type(&self, bits: u32) -> IntType<'ctx> {
        std::num::NonZeroU32::new(bits)
            .and_then(|b| self.ctx.custom_width_int_type(b).ok())
            .unwrap_or_else(|| panic!("internal error: no {bits}-bit integer type"))
    }

    /// The memory type of `ty` (bool is one byte).
    pub(super) fn storage_type(&self, ty: Type) -> BasicTypeEnum<'ctx> {
        if ty.is_bool() {
            self.vector_of(self.ctx.i8_type().into(), ty.lanes)
        } else {
            self.llvm_type(ty)
        }
    }

    /// `lanes` of `scalar` (the scalar itself for one lane).
    pub(super) fn vector_of(&self, scalar: BasicTypeEnum<'ctx>, lanes: u16) -> BasicTypeEnum<'ctx> {
        if lanes == 1 {
            return scalar;
        }
        let n = lanes as u32;
        match scalar {
            BasicTypeEnum::IntType(t) => t.vec_type(n).into(),
            BasicTypeEnum::FloatType(t) => t.vec_type(n).into(),
            BasicTypeEnum::PointerType(t) => t.vec_type(n).into(),
            other => panic!("internal error: no vector of {other:?}"),
        }
    }

    /// A register value loaded from memory of type `ty` (bytes to bools).
    pub(super) fn loaded_value(&self, v: Value<'ctx>, ty: Type) -> Value<'ctx> {
        if ty.is_bool() {
            let zero = self.int_const(ty.with_code(TypeCode::UInt).with_bits(8), 0);
            self.icmp(IntPredicate::NE, v, zero)
        } else {
            v
        }
    }

    /// A register value of type `ty` as it is stored (bools to bytes 0 and 1).
    pub(super) fn stored_value(&self, v: Value<'ctx>, ty: Type) -> Value<'ctx> {
        if ty.is_bool() {
            self.convert(Op::ZExt, v, self.storage_type(ty))
        } else {
            v
        }
    }

    /// The constant of (scalar or vector) integer or bool type `ty` whose lanes hold `v`
    /// wrapped to the type's width.
    pub(super) fn int_const(&self, ty: Type, v: i64) -> Value<'ctx> {
        let t = self.llvm_type(ty.element()).into_int_type();
        let scalar = t.const_int(v as u64, false).as_basic_value_enum();
        self.splat(scalar, ty.lanes)
    }

    /// The scalar constant of type `ty` with raw bits `bits` (floats bit-exact, NaN payloads
    /// included).
    pub(super) fn const_bits(&self, ty: Type, bits: u64) -> Value<'ctx> {
        let ty = ty.element();
        if !ty.is_float() {
            return self.int_const(ty, bits as i64);
        }
        let int = self.int_type(ty.bits as u32).const_int(bits, false);
        // The builder folds the cast of a constant into a float constant with these bits.
        self.convert(Op::BitCast, int.into(), self.llvm_type(ty))
    }

    /// The float constant `v` of (scalar or vector) float type `ty`.
    pub(super) fn float_const(&self, ty: Type, v: f64) -> Value<'ctx> {
        let bits = match ty.bits {
            16 => crate::ir::float16::f16_from_f64(v).to_bits() as u64,
            32 => (v as f32).to_bits() as u64,
            _ => v.to_bits(),
        };
        self.splat(self.const_bits(ty, bits), ty.lanes)
    }

    /// The all-zero value of `ty`.
    pub(super) fn zero(&self, ty: Type) -> Value<'ctx> {
        self.llvm_type(ty).const_zero()
    }

    /// `v` repeated `lanes` times (`v` itself for one lane).
    pub(super) fn splat(&self, v: Value<'ctx>, lanes: u16) -> Value<'ctx> {
        if lanes == 1 {
            return v;
        }
        let vt = self.vector_of(v.get_type(), lanes).into_vector_type();
        let one = self
            .builder
            .build_insert_element(vt.get_poison(), v, self.i32_const(0), "")
            .built();
        let mask = self.ctx.i32_type().vec_type(lanes as u32).const_zero();
        self.builder
            .build_shuffle_vector(one, vt.get_poison(), mask, "")
            .built()
            .into()
    }

    /// The lane count of a value's type.
    pub(super) fn lanes_of(v: Value<'ctx>) -> u16 {
        match v {
            BasicValueEnum::VectorValue(x) => x.get_type().get_size() as u16,
            _ => 1,
        }
    }

    pub(super) fn i32_const(&self, v: i32) -> IntValue<'ctx> {
        self.ctx.i32_type().const_int(v as i64 as u64, true)
    }

    /// Lane `lane` of a vector.
    pub(super) fn extract(&self, v: Value<'ctx>, lane: u32) -> Value<'ctx> {
        self.builder
            .build_extract_element(v.into_vector_value(), self.i32_const(lane as i32), "")
            .built()
    }

    /// A vector with lane `lane` replaced by `x`.
    pub(super) fn insert(&self, v: Value<'ctx>, x: Value<'ctx>, lane: u32) -> Value<'ctx> {
        self.builder
            .build_insert_element(v.into_vector_value(), x, self.i32_const(lane as i32), "")
            .built()
            .into()
    }

    /// `f` applied to the scalars of each lane of `args`, giving a value of type `ty` (`f`
    /// applied to `args` themselves for scalars).
    pub(super) fn map_lanes(
        &self,
        args: &[Value<'ctx>],
        ty: Type,
        f: impl Fn(&Self, &[Value<'ctx>]) -> Value<'ctx>,
    ) -> Value<'ctx> {
        if ty.is_scalar() {
            return f(self, args);
        }
        let mut out = self.llvm_type(ty).into_vector_type().get_poison().into();
        for lane in 0..ty.lanes as u32 {
            let scalars: Vec<Value<'ctx>> = args.iter().map(|&v| self.extract(v, lane)).collect();
            out = self.insert(out, f(self, &scalars), lane);
        }
        out
    }

    /// The lanes of `a` and `b` picked by the constant `indices` (lanes of `b` numbered after
    /// those of `a`).
    pub(super) fn shuffle(&self, a: Value<'ctx>, b: Value<'ctx>, indices: &[u32]) -> Value<'ctx> {
        let i32t = self.ctx.i32_type();
        let mask: Vec<IntValue<'ctx>> = indices
            .iter()
            .map(|&i| i32t.const_int(i as u64, false))
            .collect();
        let mask = inkwell::types::VectorType::const_vector(&mask);
        self.builder
            .build_shuffle_vector(a.into_vector_value(), b.into_vector_value(), mask, "")
            .built()
            .into()
    }

    pub(super) fn binop(&self, op: Op, a: Value<'ctx>, b: Value<'ctx>) -> Value<'ctx> {
        self.builder.build_binop(op, a, b, "").built()
    }

    pub(super) fn convert(&self, op: Op, v: Value<'ctx>, to: BasicTypeEnum<'ctx>) -> Value<'ctx> {
        self.builder.build_cast(op, v, to, "").built()
    }

    pub(super) fn icmp(&self, p: IntPredicate, a: Value<'ctx>, b: Value<'ctx>) -> Value<'ctx> {
        match (a, b) {
            (Value::IntValue(a), Value::IntValue(b)) => {
                self.builder.build_int_compare(p, a, b, "").built().into()
            }
            (Value::VectorValue(a), Value::VectorValue(b)) => {
                self.builder.build_int_compare(p, a, b, "").built().into()
            }
            _ => panic!("internal error: icmp of {a:?} and {b:?}"),
        }
    }

    pub(super) fn fcmp(&self, p: FloatPredicate, a: Value<'ctx>, b: Value<'ctx>) -> Value<'ctx> {
        match (a, b) {
            (Value::FloatValue(a), Value::FloatValue(b)) => {
                self.builder.build_float_compare(p, a, b, "").built().into()
            }
            (Value::VectorValue(a), Value::VectorValue(b)) => {
                self.builder.build_float_compare(p, a, b, "").built().into()
            }
            _ => panic!("internal error: fcmp of {a:?} and {b:?}"),
        }
    }

    /// Lane-wise (or, with a scalar condition, whole-value) choice.
    pub(super) fn select(&self, c: Value<'ctx>, t: Value<'ctx>, f: Value<'ctx>) -> Value<'ctx> {
        match c {
            Value::IntValue(c) => self.builder.build_select(c, t, f, "").built(),
            Value::VectorValue(c) => self.builder.build_select(c, t, f, "").built(),
            _ => panic!("internal error: select on {c:?}"),
        }
    }

    pub(super) fn fneg(&self, v: Value<'ctx>) -> Value<'ctx> {
        match v {
            Value::FloatValue(x) => self.builder.build_float_neg(x, "").built().into(),
            Value::VectorValue(x) => self.builder.build_float_neg(x, "").built().into(),
            _ => panic!("internal error: fneg of {v:?}"),
        }
    }

    /// A call of the LLVM intrinsic `name` overloaded on `overloads`.
    pub(super) fn call_intrinsic(
        &self,
        name: &str,
        overloads: &[BasicTypeEnum<'ctx>],
        args: &[Value<'ctx>],
    ) -> Value<'ctx> {
        let f = LlvmIntrinsic::find(name)
            .and_then(|i| i.get_declaration(&self.module, overloads))
            .unwrap_or_else(|| panic!("internal error: no LLVM intrinsic {name}"));
        self.call(f, args)
            .unwrap_or_else(|| panic!("internal error: {name} returns nothing"))
    }

    /// A call of `f`; its result, unless it returns void.
    pub(super) fn call(&self, f: FunctionValue<'ctx>, args: &[Value<'ctx>]) -> Option<Value<'ctx>> {
        let args: Vec<BasicMetadataValueEnum<'ctx>> = args.iter().map(|&a| a.into()).collect();
        match self
            .builder
            .build_call(f, &args, "")
            .built()
            .try_as_basic_value()
        {
            ValueKind::Basic(v) => Some(v),
            ValueKind::Instruction(_) => None,
        }
    }

    /// `base + index` elements of type `elem` (`index` scalar or vector: a pointer or a vector
    /// of pointers).
    pub(super) fn element_ptr(
        &self,
        elem: BasicTypeEnum<'ctx>,
        base: PointerValue<'ctx>,
        index: impl Into<IndexArg<'ctx>>,
    ) -> PointerValue<'ctx> {
        match index.into() {
            IndexArg::Const(i) => {
                let i = self.ctx.i64_type().const_int(i as u64, true);
                // SAFETY: in-bounds arithmetic within a buffer the statement addresses.
                unsafe { self.builder.build_in_bounds_gep(elem, base, &[i], "") }.built()
            }
            IndexArg::Value(Value::IntValue(i)) => {
                // SAFETY: as above.
                unsafe { self.builder.build_in_bounds_gep(elem, base, &[i], "") }.built()
            }
            IndexArg::Value(other) => panic!("internal error: scalar GEP with {other:?}"),
        }
    }

    /// `base + index` for a vector of indices: a vector of pointers.
    pub(super) fn element_ptrs(
        &self,
        elem: BasicTypeEnum<'ctx>,
        base: PointerValue<'ctx>,
        index: Value<'ctx>,
    ) -> Value<'ctx> {
        use inkwell::values::AsValueRef;
        let mut indices = [index.as_value_ref()];
        // SAFETY: a GEP of one vector index on a scalar base pointer, which LLVM defines as
        // the vector of element pointers; the operands are valid values of this context.
        unsafe {
            let raw = inkwell::llvm_sys::core::LLVMBuildInBoundsGEP2(
                self.builder.as_mut_ptr(),
                elem.as_type_ref(),
                base.as_value_ref(),
                indices.as_mut_ptr(),
                1,
                c"".as_ptr(),
            );
            Value::new(raw)
        }
    }
}

/// A GEP index: a constant or an i32/i64 value.
pub(super) enum IndexArg<'ctx> {
    Const(i64),
    Value(Value<'ctx>),
}

impl From<i64> for IndexArg<'_> {
    fn from(i: i64) -> Self {
        IndexArg::Const(i)
    }
}

impl<'ctx> From<Value<'ctx>> for IndexArg<'ctx> {
    fn from(v: Value<'ctx>) -> Self {
        IndexArg::Value(v)
    }
}
