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
        ExprKind::Param(sym(&format!("{buffer}.{field}.{dim}"))),
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
    Stmt::new(StmtKind::Allocate {
        buffer: sym(buffer),
        ty,
        extents,
        body,
    })
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
        });
        self
    }

    pub fn signature(&self) -> Signature {
        let buffer = |(name, b): &(Symbol, AnyBuffer)| BufferArgument {
            name: *name,
            ty: b.ty(),
            dims: b.dims().len(),
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
        let compiled = compile_jit(&self.stmt, &self.signature(), target)?;
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

/// Asserts two buffers hold the same bits everywhere.
pub fn assert_same(name: Symbol, expected: &AnyBuffer, got: &AnyBuffer, stmt: &Stmt) {
    assert_eq!(expected.dims(), got.dims(), "{name}: dimensions differ");
    let mut mismatches = Vec::new();
    let dims = expected.dims().to_vec();
    let mins: Vec<i64> = dims.iter().map(|d| d.min).collect();
    let extents: Vec<i64> = dims.iter().map(|d| d.extent).collect();
    tessera::lang::buffer::for_each_coord_in(&mins, &extents, &mut |c| {
        let (e, g) = (expected.get_value(c), got.get_value(c));
        if !e.bits_eq(g) && mismatches.len() < 10 {
            mismatches.push(format!("at {c:?}: interpreter {e:?}, JIT {g:?}"));
        }
    });
    assert!(
        mismatches.is_empty(),
        "{name} differs:\n{}\nstatement:\n{stmt}",
        mismatches.join("\n")
    );
}
