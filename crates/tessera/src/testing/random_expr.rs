//! Random, well-typed expressions and random variable assignments, for the randomized tests
//! that compare a pass's output with its input by evaluating both (the simplifier fuzzer,
//! interval analysis, ...). Everything is driven by a caller-seeded `SmallRng`, so a failing
//! case is reproduced from its seed.
//!
//! Values are biased toward small numbers and the edges of each type (0, ±1, the type's
//! minimum and maximum, NaN, ±∞, −0.0), where rewriting rules tend to go wrong.

use std::collections::HashMap;

use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;
use rand::Rng;

use crate::eval::value::Value;
use crate::ir::{BinaryOp, Expr, Intrinsic, Symbol, Type, TypeCode, UnaryOp};

/// What the generator may produce.
#[derive(Clone, Debug)]
pub struct GenOptions {
    /// Scalar types that subexpressions of another type may have: operands of comparisons,
    /// sources of casts, values of lets.
    pub types: Vec<Type>,
    /// Whether `random_type` may pick vector types (built from `Ramp`, `Broadcast` and
    /// vector lets), with the lane counts in `lane_counts`.
    pub vectors: bool,
    pub lane_counts: Vec<u16>,
    /// Whether `Let` nodes (sometimes shadowing an outer name) are generated.
    pub lets: bool,
    /// Whether the intrinsics abs, absd, floor, ceil, round, trunc, sqrt, saturating_cast and
    /// lerp are generated.
    pub intrinsics: bool,
    /// Whether integer vectors favor the shapes of vectorized index arithmetic: ramps with
    /// small constant strides (often over bases aligned to a power of two), broadcasts, and
    /// sums, differences, products, quotients and remainders of these with broadcasts.
    pub index_arithmetic: bool,
}

impl Default for GenOptions {
    fn default() -> GenOptions {
        GenOptions {
            types: Type::ALL_SCALARS.to_vec(),
            vectors: false,
            lane_counts: vec![2, 4, 8],
            lets: true,
            intrinsics: true,
            index_arithmetic: false,
        }
    }
}

/// A random expression of type `ty` (scalar or vector) over the free variables `vars`
/// (scalar-typed), with at most `depth` levels of operators above the leaves.
pub fn random_expr(rng: &mut SmallRng, ty: Type, depth: u32, vars: &[(Symbol, Type)]) -> Expr {
    random_expr_with(rng, ty, depth, vars, &GenOptions::default())
}

/// `random_expr` restricted by `options`.
pub fn random_expr_with(
    rng: &mut SmallRng,
    ty: Type,
    depth: u32,
    vars: &[(Symbol, Type)],
    options: &GenOptions,
) -> Expr {
    let mut generator = Generator {
        rng,
        options,
        scope: vars.to_vec(),
        lets_made: 0,
        built: Vec::new(),
    };
    generator.expr(ty, depth)
}

/// A random type from `options.types`, a vector of it when `options.vectors` allows.
pub fn random_type(rng: &mut SmallRng, options: &GenOptions) -> Type {
    let ty = *options
        .types
        .choose(rng)
        .expect("internal error: GenOptions::types is empty");
    if options.vectors && rng.random_bool(0.5) {
        let lanes = *options.lane_counts.choose(rng).unwrap_or(&4);
        ty.with_lanes(lanes)
    } else {
        ty
    }
}

/// The values of scalar type `ty` where rules most often break: 0, ±1, the extremes, and for
/// floats −0.0, NaN, ±∞ and the smallest normal.
pub fn edge_values(ty: Type) -> Vec<Value> {
    let ty = ty.element();
    match ty.code {
        TypeCode::Bool => vec![Value::Bool(false), Value::Bool(true)],
        TypeCode::Int => [0, 1, -1, 2, ty.int_min(), ty.int_min() + 1, ty.int_max()]
            .into_iter()
            .map(|v| Value::Int(v as i64))
            .collect(),
        TypeCode::UInt => [0, 1, 2, ty.int_max() - 1, ty.int_max()]
            .into_iter()
            .map(|v| Value::UInt(v as u64))
            .collect(),
        TypeCode::Float => {
            let edges = [
                0.0,
                -0.0,
                1.0,
                -1.0,
                0.5,
                f64::NAN,
                f64::INFINITY,
                f64::NEG_INFINITY,
            ];
            let extremes = match ty.bits {
                16 => [half::f16::MAX.to_f64(), half::f16::MIN_POSITIVE.to_f64()],
                32 => [f32::MAX as f64, f32::MIN_POSITIVE as f64],
                _ => [f64::MAX, f64::MIN_POSITIVE],
            };
            edges
                .into_iter()
                .chain(extremes)
                .map(|v| float_value(v, ty))
                .collect()
        }
    }
}

/// A random value of scalar type `ty`: usually small, often an edge value, sometimes any
/// value of the type.
pub fn random_value(rng: &mut SmallRng, ty: Type) -> Value {
    let ty = ty.element();
    let roll = rng.random_range(0..100);
    if roll < 25 {
        return *edge_values(ty).choose(rng).expect("every type has edges");
    }
    if roll < 40 {
        return quiet(Value::from_bits(rng.random(), ty));
    }
    match ty.code {
        TypeCode::Bool => Value::Bool(rng.random()),
        TypeCode::Int => Value::Int(rng.random_range(-16..=16)),
        TypeCode::UInt => Value::UInt(rng.random_range(0..=32)),
        // Multiples of 1/4 are exact in every float type, so arithmetic on them rarely
        // rounds, which keeps float comparisons between rewritten forms meaningful.
        TypeCode::Float => float_value(rng.random_range(-64..=64) as f64 / 4.0, ty),
    }
}

/// A random value for every variable in `vars`.
pub fn random_assignment(rng: &mut SmallRng, vars: &[(Symbol, Type)]) -> HashMap<Symbol, Value> {
    vars.iter()
        .map(|&(name, ty)| (name, random_value(rng, ty)))
        .collect()
}

/// A signaling NaN made quiet (same sign and payload). Arithmetic quiets signaling NaNs, so
/// even `x * 1.0` changes one of their bits; like Halide, Tessera does not promise to keep
/// them, and random values never are one.
fn quiet(v: Value) -> Value {
    match v {
        Value::F16(f) if f.is_nan() => Value::F16(half::f16::from_bits(f.to_bits() | 0x0200)),
        Value::F32(f) if f.is_nan() => Value::F32(f32::from_bits(f.to_bits() | 0x0040_0000)),
        Value::F64(f) if f.is_nan() => {
            Value::F64(f64::from_bits(f.to_bits() | 0x0008_0000_0000_0000))
        }
        other => other,
    }
}

fn float_value(v: f64, ty: Type) -> Value {
    crate::eval::value::cast(Value::F64(v), Type::f64(), ty)
}

struct Generator<'a> {
    rng: &'a mut SmallRng,
    options: &'a GenOptions,
    /// Variables usable at the current point: the free ones, then enclosing let names.
    scope: Vec<(Symbol, Type)>,
    lets_made: u32,
    /// Subexpressions built so far that are valid at the current point, some of which get
    /// reused: repeated subexpressions (`e - e`, `min(e, e + 1)`) are where algebraic rules
    /// apply, and independent random trees rarely contain them.
    built: Vec<Expr>,
}

/// The ways of building a node of a given type; `Generator::choices` lists the ones that
/// are well typed for a target.
#[derive(Clone, Copy, Debug)]
enum Shape {
    Arithmetic,
    Bitwise,
    Shift,
    Unary,
    Cast,
    Select,
    Let,
    Comparison,
    Logical,
    Broadcast,
    Ramp,
    Abs,
    Absd,
    Rounding,
    Sqrt,
    SaturatingCast,
    Lerp,
    /// `e op broadcast(k)` or `broadcast(k) op e` (with `index_arithmetic`).
    IndexOp,
}

impl Generator<'_> {
    fn expr(&mut self, ty: Type, depth: u32) -> Expr {
        if self.rng.random_bool(0.15) {
            let same_type: Vec<&Expr> = self.built.iter().filter(|e| e.ty() == ty).collect();
            if let Some(e) = same_type.choose(self.rng) {
                return (*e).clone();
            }
        }
        let e = if depth == 0 || self.rng.random_bool(0.1) {
            self.leaf(ty)
        } else {
            let shape = *self
                .choices(ty)
                .choose(self.rng)
                .expect("every type has a shape");
            self.build(shape, ty, depth - 1)
        };
        self.built.push(e.clone());
        e
    }

    fn choices(&self, ty: Type) -> Vec<Shape> {
        use Shape::*;
        let mut shapes = vec![Cast, Select];
        if self.options.lets {
            shapes.push(Let);
        }
        if ty.is_vector() {
            shapes.push(Broadcast);
            if ty.is_int_or_uint() {
                shapes.push(Ramp);
                if self.options.index_arithmetic {
                    shapes.extend([Ramp, Ramp, Broadcast, IndexOp, IndexOp, IndexOp, IndexOp]);
                }
            }
        }
        let intrinsics = self.options.intrinsics;
        match ty.code {
            TypeCode::Bool => shapes.extend([Comparison, Comparison, Comparison, Logical, Logical]),
            TypeCode::Int | TypeCode::UInt => {
                shapes.extend([
                    Arithmetic, Arithmetic, Arithmetic, Arithmetic, Bitwise, Shift,
                ]);
                shapes.push(Unary);
                if intrinsics {
                    shapes.extend([SaturatingCast, Lerp]);
                    if ty.is_uint() {
                        shapes.extend([Abs, Absd]);
                    }
                }
            }
            TypeCode::Float => {
                shapes.extend([Arithmetic, Arithmetic, Arithmetic, Arithmetic, Unary]);
                if intrinsics {
                    shapes.extend([Abs, Absd, Rounding, Sqrt, SaturatingCast, Lerp]);
                }
            }
        }
        shapes
    }

    fn build(&mut self, shape: Shape, ty: Type, depth: u32) -> Expr {
        use BinaryOp::*;
        let lanes = ty.lanes;
        match shape {
            Shape::Arithmetic => {
                let op = *[Add, Sub, Mul, Div, Mod, Min, Max]
                    .choose(self.rng)
                    .unwrap();
                self.binary(op, ty, depth)
            }
            Shape::Bitwise => {
                let op = *[BitAnd, BitOr, BitXor].choose(self.rng).unwrap();
                self.binary(op, ty, depth)
            }
            Shape::Shift => {
                let op = *[Shl, Shr].choose(self.rng).unwrap();
                self.binary(op, ty, depth)
            }
            Shape::Unary => {
                let op = if ty.is_float() || self.rng.random_bool(0.5) {
                    UnaryOp::Neg
                } else {
                    UnaryOp::BitNot
                };
                Expr::unary(op, self.expr(ty, depth))
            }
            Shape::Cast => {
                let from = self.other_type(ty.element()).with_lanes(lanes);
                Expr::cast(ty, self.expr(from, depth))
            }
            Shape::Select => {
                let c = self.expr(Type::bool_().with_lanes(lanes), depth);
                let (t, f) = (self.expr(ty, depth), self.expr(ty, depth));
                Expr::select(c, t, f)
            }
            Shape::Let => self.let_in(ty, depth),
            Shape::Comparison => {
                let op = *[Eq, Ne, Lt, Le, Gt, Ge].choose(self.rng).unwrap();
                let operand = self.operand_type().with_lanes(lanes);
                let (a, b) = (self.expr(operand, depth), self.expr(operand, depth));
                Expr::binary(op, a, b)
            }
            Shape::Logical => match self.rng.random_range(0..3) {
                0 => Expr::unary(UnaryOp::Not, self.expr(ty, depth)),
                1 => self.binary(And, ty, depth),
                _ => self.binary(Or, ty, depth),
            },
            Shape::Broadcast => {
                let inner = self.divisor_of(lanes);
                self.expr(ty.with_lanes(inner), depth)
                    .broadcast_to(lanes / inner)
            }
            Shape::Ramp => {
                let inner = self.divisor_of(lanes);
                let part = ty.with_lanes(inner);
                let (base, stride) = if self.options.index_arithmetic {
                    (self.index_base(part, depth), self.index_stride(part, depth))
                } else {
                    (self.expr(part, depth), self.expr(part, depth))
                };
                Expr::ramp(base, stride, lanes / inner)
            }
            Shape::IndexOp => {
                let op = *[Add, Add, Sub, Sub, Mul, Div, Mod]
                    .choose(self.rng)
                    .unwrap();
                let e = self.expr(ty, depth);
                let k = self.index_operand(ty, depth);
                let commutes = matches!(op, Add | Mul);
                if (commutes || op == Sub) && self.rng.random_bool(0.3) {
                    Expr::binary(op, k, e)
                } else {
                    Expr::binary(op, e, k)
                }
            }
            Shape::Abs => {
                let arg = self.same_width_signed_or_not(ty);
                Expr::intrinsic(ty, Intrinsic::Abs, vec![self.expr(arg, depth)])
            }
            Shape::Absd => {
                let arg = self.same_width_signed_or_not(ty);
                let (a, b) = (self.expr(arg, depth), self.expr(arg, depth));
                Expr::intrinsic(ty, Intrinsic::Absd, vec![a, b])
            }
            Shape::Rounding => {
                let op = *[
                    Intrinsic::Floor,
                    Intrinsic::Ceil,
                    Intrinsic::Round,
                    Intrinsic::Trunc,
                ]
                .choose(self.rng)
                .unwrap();
                Expr::intrinsic(ty, op, vec![self.expr(ty, depth)])
            }
            Shape::Sqrt => Expr::intrinsic(ty, Intrinsic::Sqrt, vec![self.expr(ty, depth)]),
            Shape::SaturatingCast => {
                let from = self.other_type(ty.element()).with_lanes(lanes);
                let arg = self.expr(from, depth);
                Expr::intrinsic(ty, Intrinsic::SaturatingCast, vec![arg])
            }
            Shape::Lerp => {
                let weight = if ty.is_float() {
                    ty
                } else {
                    self.integer_lerp_weight().with_lanes(lanes)
                };
                let (a, b) = (self.expr(ty, depth), self.expr(ty, depth));
                let w = self.expr(weight, depth);
                Expr::intrinsic(ty, Intrinsic::Lerp, vec![a, b, w])
            }
        }
    }

    fn binary(&mut self, op: BinaryOp, ty: Type, depth: u32) -> Expr {
        let (a, b) = (self.expr(ty, depth), self.expr(ty, depth));
        Expr::binary(op, a, b)
    }

    /// `let name = value in body`, where the name is usually new but sometimes shadows a
    /// variable already in scope (possibly with another type), to exercise substitution.
    fn let_in(&mut self, ty: Type, depth: u32) -> Expr {
        let value_ty = if ty.is_vector() && self.rng.random_bool(0.5) {
            self.operand_type().with_lanes(ty.lanes)
        } else {
            self.operand_type()
        };
        let value = self.expr(value_ty, depth);
        let name = match self.scope.choose(self.rng) {
            Some(&(outer, _)) if self.rng.random_bool(0.15) => outer,
            _ => {
                self.lets_made += 1;
                Symbol::new(&format!("t{}", self.lets_made))
            }
        };
        // Inside the body, earlier subexpressions naming a shadowed variable would mean
        // something else; and what the body builds may name the new variable.
        let shadows = self.scope.iter().any(|(n, _)| *n == name);
        let outer_built = if shadows {
            std::mem::take(&mut self.built)
        } else {
            self.built.clone()
        };
        self.scope.push((name, value_ty));
        let body = self.expr(ty, depth);
        self.scope.pop();
        self.built = outer_built;
        Expr::let_in(name, value, body)
    }

    fn leaf(&mut self, ty: Type) -> Expr {
        // Only the innermost binding of a name is visible.
        let visible: Vec<(Symbol, Type)> = self
            .scope
            .iter()
            .enumerate()
            .filter(|(i, (name, _))| !self.scope[i + 1..].iter().any(|(n, _)| n == name))
            .map(|(_, v)| *v)
            .collect();
        let exact: Vec<Symbol> = visible
            .iter()
            .filter(|(_, t)| *t == ty)
            .map(|(n, _)| *n)
            .collect();
        if !exact.is_empty() && self.rng.random_bool(0.6) {
            return Expr::var(*exact.choose(self.rng).unwrap(), ty);
        }
        if ty.is_vector() {
            return if ty.is_int_or_uint() && self.rng.random_bool(0.4) {
                let (base, stride) = (self.leaf(ty.element()), self.small_const(ty.element()));
                Expr::ramp(base, stride, ty.lanes)
            } else {
                self.leaf(ty.element()).broadcast_to(ty.lanes)
            };
        }
        let scalars: Vec<(Symbol, Type)> =
            visible.into_iter().filter(|(_, t)| t.is_scalar()).collect();
        if !scalars.is_empty() && self.rng.random_bool(0.3) {
            let &(name, var_ty) = scalars.choose(self.rng).unwrap();
            return Expr::cast(ty, Expr::var(name, var_ty));
        }
        random_value(self.rng, ty).to_expr(ty)
    }

    /// The base of an index ramp: often `e * 2^k + c`, whose alignment is known.
    fn index_base(&mut self, ty: Type, depth: u32) -> Expr {
        let e = self.expr(ty, depth);
        if !self.rng.random_bool(0.4) {
            return e;
        }
        let scale = Expr::make_const(ty, *[2, 4, 8, 16].choose(self.rng).unwrap());
        let scaled = Expr::binary(BinaryOp::Mul, e, scale);
        if self.rng.random_bool(0.5) {
            let offset = Expr::make_const(ty, self.rng.random_range(0..=9));
            Expr::binary(BinaryOp::Add, scaled, offset)
        } else {
            scaled
        }
    }

    /// The stride of an index ramp: usually a small constant.
    fn index_stride(&mut self, ty: Type, depth: u32) -> Expr {
        if self.rng.random_bool(0.75) {
            let v = *[1, 1, 1, 2, 3, 4, 8, -1, -2, 0].choose(self.rng).unwrap();
            Expr::make_const(ty, v)
        } else {
            self.expr(ty, depth)
        }
    }

    /// The broadcast operand of index arithmetic: a small constant (often a power of two),
    /// or a broadcast scalar.
    fn index_operand(&mut self, ty: Type, depth: u32) -> Expr {
        let part = ty.with_lanes(self.divisor_of(ty.lanes));
        let scalar = if self.rng.random_bool(0.6) {
            let v = *[1, 2, 3, 4, 8, 16, -1, -4, 0].choose(self.rng).unwrap();
            Expr::make_const(part, v)
        } else {
            self.expr(part, depth)
        };
        scalar.broadcast_to(ty.lanes / part.lanes)
    }

    fn small_const(&mut self, ty: Type) -> Expr {
        Expr::make_const(ty, self.rng.random_range(-3..=3))
    }

    fn operand_type(&mut self) -> Type {
        *self
            .options
            .types
            .choose(self.rng)
            .expect("internal error: GenOptions::types is empty")
    }

    /// The weight type of a lerp of integers: f32, or a fixed-point (unsigned) type when the
    /// options offer one.
    fn integer_lerp_weight(&mut self) -> Type {
        let unsigned: Vec<Type> = (self.options.types.iter().copied())
            .filter(|t| t.is_uint())
            .collect();
        match unsigned.choose(self.rng) {
            Some(t) if self.rng.random_bool(0.5) => *t,
            _ => Type::f32(),
        }
    }

    /// A scalar type other than `ty` when the options offer one.
    fn other_type(&mut self, ty: Type) -> Type {
        let others: Vec<Type> = self
            .options
            .types
            .iter()
            .copied()
            .filter(|t| *t != ty)
            .collect();
        match others.choose(self.rng) {
            Some(t) => *t,
            None => self.operand_type(),
        }
    }

    /// The argument type of abs/absd producing `ty`: for unsigned results the signed or
    /// unsigned type of the same width; for floats `ty` itself.
    fn same_width_signed_or_not(&mut self, ty: Type) -> Type {
        if ty.is_uint() && self.rng.random_bool(0.7) {
            ty.with_code(TypeCode::Int)
        } else {
            ty
        }
    }

    /// A lane count dividing `lanes` for the inner vector of a broadcast or ramp, usually 1.
    fn divisor_of(&mut self, lanes: u16) -> u16 {
        if lanes & 1 == 0 && self.rng.random_bool(0.2) {
            lanes / 2
        } else {
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::expr::ExprEval;
    use rand::SeedableRng;

    #[test]
    fn generated_expressions_are_well_typed_and_evaluate() {
        let mut rng = SmallRng::seed_from_u64(1);
        let vars = [
            (Symbol::new("x"), Type::i32()),
            (Symbol::new("y"), Type::u8()),
        ];
        let options = GenOptions {
            vectors: true,
            ..GenOptions::default()
        };
        for _ in 0..500 {
            let ty = random_type(&mut rng, &options);
            let e = random_expr_with(&mut rng, ty, 4, &vars, &options);
            assert_eq!(e.ty(), ty, "{e}");
            let mut env = random_assignment(&mut rng, &vars);
            let lanes = ExprEval::new(&mut env).eval_lanes(&e).unwrap();
            assert_eq!(lanes.len(), ty.lanes as usize);
        }
    }

    #[test]
    fn values_have_their_type() {
        let mut rng = SmallRng::seed_from_u64(2);
        for ty in Type::ALL_SCALARS {
            for _ in 0..100 {
                let v = random_value(&mut rng, ty);
                let wrapped = crate::eval::value::cast(v, ty, ty);
                assert!(wrapped.bits_eq(v), "{v:?} is not a value of {ty}");
            }
        }
    }
}
