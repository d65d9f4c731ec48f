//! Shared by the `llvm_*` tests: statement builders, and a harness that runs one flat
//! statement on the JIT and on the Stmt interpreter with the same buffers and parameters and
//! compares every output element bit for bit.

#![allow(dead_code)]

use tessera::codegen::{compile_jit, BufferArgument, ScalarArgument, Signature, Target};
use tessera::eval::value::Value;
use tessera::interp::Interpreter;
use tessera::ir::{Expr, ExprKind, ForKind, Stmt, StmtKind, Symbol, Type};
use tessera::lang::buffer::AnyBuffer;
use tessera::lang::param::ParamBinding;

pub fn sym(name: &str) -> Symbol {
    Symbol::new(name)
}
pub fn var(name: &str) -> Expr {
    Expr::var(name, Type::i32())
}
pub fn int(v: i32) -> Expr {
    Expr::i32(v)
}
/// The int32 buffer field `buffer.field.dim`.
pub fn field(buffer: &str, field: &str, dim: usize) -> Expr {
    Expr::new(
        Type::i32(),
        ExprKind::Param(sym(&format!("{buffer}.{field}.{dim}")), None),
    )
}
pub fn looped(kind: ForKind, name: &str, min: Expr, extent: Expr, body: Stmt) -> Stmt {
    Stmt::for_loop(sym(name), min, extent, kind, body)
}
pub fn serial(name: &str, min: Expr, extent: Expr, body: Stmt) -> Stmt {
    looped(ForKind::Serial, name, min, extent, body)
}
pub fn parallel(name: &str, min: Expr, extent: Expr, body: Stmt) -> Stmt {
    looped(ForKind::Parallel, name, min, extent, body)
}
pub fn let_stmt(name: &str, value: Expr, body: Stmt) -> Stmt {
    Stmt::let_stmt(sym(name), value, body)
}
pub fn allocate(buffer: &str, ty: Type, extents: Vec<Expr>, body: Stmt) -> Stmt {
    Stmt::allocate(sym(buffer), ty, extents, body)
}
pub fn store_if(buffer: &str, index: Expr, value: Expr, predicate: Option<Expr>) -> Stmt {
    Stmt::new(StmtKind::Store {
        buffer: sym(buffer),
        index,
        value,
        predicate,
    })
}
pub fn store(buffer: &str, index: Expr, value: Expr) -> Stmt {
    store_if(buffer, index, value, None)
}
pub fn load(ty: Type, buffer: &str, index: Expr) -> Expr {
    Expr::load(ty, sym(buffer), index)
}
pub fn load_if(ty: Type, buffer: &str, index: Expr, predicate: Expr) -> Expr {
    Expr::new(
        ty,
        ExprKind::Load {
            buffer: sym(buffer),
            index,
            predicate: Some(predicate),
        },
    )
}
pub fn bin(op: tessera::ir::BinaryOp, a: Expr, b: Expr) -> Expr {
    Expr::binary(op, a, b)
}
pub fn add(a: Expr, b: Expr) -> Expr {
    bin(tessera::ir::BinaryOp::Add, a, b)
}
pub fn mul(a: Expr, b: Expr) -> Expr {
    bin(tessera::ir::BinaryOp::Mul, a, b)
}
pub fn lt(a: Expr, b: Expr) -> Expr {
    bin(tessera::ir::BinaryOp::Lt, a, b)
}

/// One statement with its buffers and parameters.
#[derive(Clone)]
pub struct Case {
    pub stmt: Stmt,
    /// Output buffers with their initial contents (both runs start from these).
    pub outputs: Vec<(Symbol, AnyBuffer)>,
    pub images: Vec<(Symbol, AnyBuffer)>,
    pub params: Vec<ParamBinding>,
}

impl Case {
    pub fn new(stmt: Stmt) -> Case {
        Case {
            stmt,
            outputs: Vec::new(),
            images: Vec::new(),
            params: Vec::new(),
        }
    }
    pub fn output(mut self, name: &str, buffer: impl Into<AnyBuffer>) -> Case {
        self.outputs.push((sym(name), buffer.into()));
        self
    }
    pub fn image(mut self, name: &str, buffer: impl Into<AnyBuffer>) -> Case {
        self.images.push((sym(name), buffer.into()));
        self
    }
    pub fn param(mut self, name: &str, ty: Type, value: Value) -> Case {
        self.params.push(ParamBinding {
            name: sym(name),
            ty,
            value,
            origin: None,
        });
        self
    }

    pub fn signature(&self) -> Signature {
        let buffer = |(name, b): &(Symbol, AnyBuffer)| BufferArgument {
            name: *name,
            ty: b.ty(),
            dims: b.dims().len(),
            nontemporal: false,
        };
        Signature {
            outputs: self.outputs.iter().map(buffer).collect(),
            images: self.images.iter().map(buffer).collect(),
            params: self
                .params
                .iter()
                .map(|p| ScalarArgument {
                    name: p.name,
                    ty: p.ty,
                })
                .collect(),
        }
    }

    /// The outputs the interpreter computes (or its error).
    pub fn interpret(&self) -> tessera::Result<Vec<AnyBuffer>> {
        let mut interp = Interpreter::new().with_parallel_seed(7);
        for (name, b) in self.outputs.iter().chain(&self.images) {
            interp.bind_buffer(*name, b.clone());
        }
        for p in &self.params {
            interp.bind_param(p.name, p.value);
        }
        interp.run(&self.stmt)?;
        Ok(self
            .outputs
            .iter()
            .map(|(name, _)| interp.take_buffer(*name).expect("bound above"))
            .collect())
    }

    /// The outputs the JIT computes (or its error) for `target`.
    pub fn jit_on(&self, target: &Target) -> tessera::Result<Vec<AnyBuffer>> {
        // SAFETY: the cases' statements access their buffers in bounds; every test also runs
        // them on the interpreter, which checks each access.
        let compiled = unsafe { compile_jit(&self.stmt, &self.signature(), target)? };
        let mut outputs: Vec<AnyBuffer> = self.outputs.iter().map(|(_, b)| b.clone()).collect();
        let mut refs: Vec<&mut AnyBuffer> = outputs.iter_mut().collect();
        let images: Vec<(Symbol, &AnyBuffer)> = self.images.iter().map(|(n, b)| (*n, b)).collect();
        compiled.run(&mut refs, &images, &self.params)?;
        Ok(outputs)
    }

    pub fn jit(&self) -> tessera::Result<Vec<AnyBuffer>> {
        self.jit_on(&Target::host())
    }

    /// Runs both and asserts equal outputs, bit for bit.
    pub fn check(&self) {
        self.check_on(&Target::host())
    }

    pub fn check_on(&self, target: &Target) {
        let expected = self.interpret().expect("the interpreter runs the case");
        let got = self.jit_on(target).expect("the JIT runs the case");
        for ((name, _), (e, g)) in self.outputs.iter().zip(expected.iter().zip(&got)) {
            assert_same(*name, e, g, &self.stmt);
        }
    }
}

/// Bitwise equality, except that any two NaNs are equal: payloads are not part of the
/// semantics (libm and hardware differ in whether they quiet signaling NaNs, and random bit
/// patterns produce those).
pub fn same_bits(a: Value, b: Value) -> bool {
    a.bits_eq(b) || (a.as_f64().is_nan() && b.as_f64().is_nan())
}

/// Asserts two buffers hold the same bits everywhere (NaNs being equal).
pub fn assert_same(name: Symbol, expected: &AnyBuffer, got: &AnyBuffer, stmt: &Stmt) {
    assert_eq!(expected.dims(), got.dims(), "{name}: dimensions differ");
    let mut mismatches = Vec::new();
    let dims = expected.dims().to_vec();
    let mins: Vec<i64> = dims.iter().map(|d| d.min).collect();
    let extents: Vec<i64> = dims.iter().map(|d| d.extent).collect();
    tessera::lang::buffer::for_each_coord_in(&mins, &extents, &mut |c| {
        let (e, g) = (expected.get_value(c), got.get_value(c));
        if !same_bits(e, g) && mismatches.len() < 10 {
            mismatches.push(format!(
                "at {c:?}: interpreter {e:?} ({:#x}), JIT {g:?} ({:#x})",
                e.to_bits(),
                g.to_bits()
            ));
        }
    });
    assert!(
        mismatches.is_empty(),
        "{name} differs:\n{}\nstatement:\n{stmt}",
        mismatches.join("\n")
    );
}

// ---- element-wise cases ----------------------------------------------------------------

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tessera::ir::TypeCode;

/// The seeded generator of a randomized test and its seed (`tessera::testing::test_seed`:
/// `default` unless `TESSERA_SEED` says otherwise), which is printed so a failure can be re-run.
pub fn seeded_rng(default: u64) -> (SmallRng, u64) {
    let seed = tessera::testing::test_seed("llvm", default);
    (SmallRng::seed_from_u64(seed), seed)
}

/// Values of scalar type `ty` where semantics get subtle: 0, ±1, extremes, NaN, infinities.
pub fn edges(ty: Type) -> Vec<Value> {
    match ty.code {
        TypeCode::Bool => vec![Value::Bool(false), Value::Bool(true)],
        TypeCode::Int => [
            0,
            1,
            -1,
            2,
            -2,
            3,
            -7,
            8,
            ty.int_min(),
            ty.int_min() + 1,
            ty.int_max(),
        ]
        .into_iter()
        .map(|v| Value::Int(v as i64))
        .collect(),
        TypeCode::UInt => [0, 1, 2, 3, 7, 8, ty.int_max() - 1, ty.int_max()]
            .into_iter()
            .map(|v| Value::UInt(v as u64))
            .collect(),
        TypeCode::Float => [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            -2.5,
            3.5,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e30,
            -1e30,
            f32::MAX as f64,
            1e300,
            65504.0,
        ]
        .into_iter()
        .map(|v| float(ty, v))
        .collect(),
    }
}

pub fn float(ty: Type, v: f64) -> Value {
    tessera::eval::value::cast(Value::F64(v), Type::f64(), ty)
}

/// A random value of scalar type `ty`: any bit pattern, or a small number.
pub fn random_value(rng: &mut SmallRng, ty: Type) -> Value {
    if rng.random_bool(0.4) {
        return Value::from_bits(rng.random(), ty);
    }
    match ty.code {
        TypeCode::Bool => Value::Bool(rng.random()),
        TypeCode::Int => Value::Int(rng.random_range(-40..=40)),
        TypeCode::UInt => Value::UInt(rng.random_range(0..=80)),
        TypeCode::Float => float(ty, rng.random_range(-400..=400) as f64 / 8.0),
    }
}

/// Argument tuples for an operation on `types`: every combination of edge values (for up to
/// two arguments), then `random` random tuples.
pub fn argument_tuples(rng: &mut SmallRng, types: &[Type], random: usize) -> Vec<Vec<Value>> {
    let mut out: Vec<Vec<Value>> = vec![vec![]];
    if types.len() <= 2 {
        for &t in types {
            out = out
                .into_iter()
                .flat_map(|prefix| {
                    edges(t).into_iter().map(move |v| {
                        let mut p = prefix.clone();
                        p.push(v);
                        p
                    })
                })
                .collect();
        }
    } else {
        out.clear();
    }
    for _ in 0..random {
        out.push(types.iter().map(|&t| random_value(rng, t)).collect());
    }
    out
}

/// A one-dimensional buffer of type `ty` holding `values`.
pub fn buffer_of(ty: Type, values: &[Value]) -> AnyBuffer {
    let mut b = AnyBuffer::with_mins(ty, &[0], &[values.len() as i64]).expect("a scalar type");
    for (i, v) in values.iter().enumerate() {
        assert!(b.set_flat(i as i64, *v));
    }
    b
}

/// One element-wise operation for `Elementwise`: its argument types, result type and how it
/// builds its expression from the argument loads.
pub struct Operation {
    pub name: String,
    pub args: Vec<Type>,
    pub result: Type,
    pub build: Builder,
}

/// Builds an operation's expression from its argument loads.
pub type Builder = Box<dyn Fn(&[Expr]) -> Expr>;

/// Operations evaluated over argument buffers `{op}_{i}` into outputs `{op}`, `lanes` at a
/// time, in one statement (one compilation).
pub fn elementwise_case(ops: &[Operation], lanes: u16, rng: &mut SmallRng, random: usize) -> Case {
    let mut body = Vec::new();
    let mut case = Case::new(Stmt::empty());
    for op in ops {
        let mut tuples = argument_tuples(rng, &op.args, random);
        while !tuples.len().is_multiple_of(lanes as usize) {
            tuples.push(tuples[0].clone());
        }
        let n = tuples.len();
        let index = if lanes == 1 {
            var("x")
        } else {
            Expr::ramp(mul(var("x"), int(lanes as i32)), int(1), lanes)
        };
        let loads: Vec<Expr> = op
            .args
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let name = format!("{}_{i}", op.name);
                let column: Vec<Value> = tuples.iter().map(|t| t[i]).collect();
                case.images.push((sym(&name), buffer_of(*t, &column)));
                load(t.with_lanes(lanes), &name, index.clone())
            })
            .collect();
        let value = (op.build)(&loads);
        assert_eq!(value.ty(), op.result.with_lanes(lanes), "{}", op.name);
        let zeros = vec![Value::zero(op.result); n];
        case.outputs
            .push((sym(&op.name), buffer_of(op.result, &zeros)));
        body.push(serial(
            "x",
            int(0),
            int((n / lanes as usize) as i32),
            store(&op.name, index, value),
        ));
    }
    case.stmt = Stmt::block(body);
    case
}
