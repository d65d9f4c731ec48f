//! Evaluation of an expression tree to a value, one vector lane at a time (every IR operation is
//! lane-wise, so lane `i` of a vector expression depends only on lane `i` of its operands,
//! with ramps and broadcasts defining the lanes; `interleave` picks its lanes from its
//! arguments'). The caller's `EvalContext` supplies free
//! variables, Func and image values, and memory. Selects, `&&` and `||` evaluate only the
//! operands that decide the result.

use std::collections::HashMap;

use super::print::{printed_line, PrintHandler};
use super::value::{self, Value};
use crate::error::{Error, Result};
use crate::ir::{
    BinaryOp, CallKind, Expr, ExprKind, Intrinsic, MessagePart, Symbol, Type, MESSAGE_VALUE_MARK,
};
use crate::lang::function::FuncLink;

/// What an expression may refer to outside itself.
pub trait EvalContext {
    /// Lane `lane` of a free variable, reduction variable or parameter.
    fn lookup(&self, name: Symbol, lane: usize) -> Option<Value>;
    /// Value `value_index` of a Func at integer coordinates.
    fn call_func(&mut self, func: &FuncLink, value_index: usize, coords: &[i64]) -> Result<Value> {
        let _ = (value_index, coords);
        Err(Error::Runtime(format!(
            "no value for a call to Func {} in this context",
            func.name()
        )))
    }
    /// An element of an input image.
    fn call_image(&mut self, image: Symbol, coords: &[i64]) -> Result<Value> {
        let _ = coords;
        Err(Error::Runtime(format!(
            "no input image {image} in this context"
        )))
    }
    /// Writes a line a `print` made (to stderr, unless the context has a handler).
    fn print(&mut self, line: &str) {
        PrintHandler::default().print(line)
    }
    /// Element `index` of a flat buffer, of type `ty`.
    fn load(&mut self, buffer: Symbol, index: i64, ty: Type) -> Result<Value> {
        let _ = (index, ty);
        Err(Error::Runtime(format!(
            "no buffer {buffer} in this context"
        )))
    }
}

/// A plain assignment of scalar values to names (every lane sees the same value).
impl EvalContext for HashMap<Symbol, Value> {
    fn lookup(&self, name: Symbol, _lane: usize) -> Option<Value> {
        self.get(&name).copied()
    }
}

/// Evaluates expressions one lane at a time, variables read from a context.
pub struct ExprEval<'a> {
    ctx: &'a mut dyn EvalContext,
    lets: Vec<(Symbol, Value)>,
    /// Set when some signed 32/64-bit addition, subtraction, multiplication, division or
    /// negation overflowed (the value still wraps). Randomized tests skip such cases, since the
    /// simplifier, like Halide's, may assume they do not happen.
    pub signed_overflow: bool,
    /// Whether to compute `signed_overflow` (a noticeable cost on hot evaluation paths that
    /// do not need it).
    track_overflow: bool,
}

impl<'a> ExprEval<'a> {
    /// An evaluator reading variables from `ctx`.
    pub fn new(ctx: &'a mut dyn EvalContext) -> ExprEval<'a> {
        ExprEval {
            ctx,
            lets: Vec::new(),
            signed_overflow: false,
            track_overflow: true,
        }
    }

    /// An evaluator that does not track signed overflow (the values are the same).
    pub fn untracked(ctx: &'a mut dyn EvalContext) -> ExprEval<'a> {
        ExprEval {
            track_overflow: false,
            ..ExprEval::new(ctx)
        }
    }

    /// Every lane of `e`.
    pub fn eval_lanes(&mut self, e: &Expr) -> Result<Vec<Value>> {
        (0..e.ty().lanes as usize)
            .map(|lane| self.eval(e, lane))
            .collect()
    }

    fn lookup(&self, name: Symbol, lane: usize) -> Result<Value> {
        if let Some((_, v)) = self.lets.iter().rev().find(|(n, _)| *n == name) {
            return Ok(*v);
        }
        self.ctx
            .lookup(name, lane)
            .ok_or_else(|| Error::Runtime(format!("no value for {name}")))
    }

    fn coords(&mut self, args: &[Expr], lane: usize) -> Result<Vec<i64>> {
        args.iter()
            .map(|a| {
                let v = self.eval(a, lane)?;
                v.as_i128()
                    .map(|i| i as i64)
                    .ok_or_else(|| Error::Runtime(format!("coordinate {a} is not an integer")))
            })
            .collect()
    }

    /// Lane `lane` of `e`.
    pub fn eval(&mut self, e: &Expr, lane: usize) -> Result<Value> {
        let ty = e.ty().element();
        match e.kind() {
            ExprKind::IntImm(_) | ExprKind::UIntImm(_) | ExprKind::FloatImm(_) => {
                Ok(Value::from_const(e).expect("constant"))
            }
            ExprKind::Var(n) | ExprKind::RVar(n, _) | ExprKind::Param(n, _) => self.lookup(*n, lane),
            ExprKind::Cast(a) => Ok(value::cast(self.eval(a, lane)?, a.ty().element(), ty)),
            ExprKind::Unary(op, a) => {
                let v = self.eval(a, lane)?;
                if self.track_overflow && *op == crate::ir::UnaryOp::Neg {
                    self.signed_overflow |=
                        value::signed_overflow(BinaryOp::Sub, Value::zero(ty), v, ty);
                }
                Ok(value::unary(*op, v, ty))
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.eval(a, lane)?;
                match (op, x) {
                    (BinaryOp::And, Value::Bool(false)) => return Ok(Value::Bool(false)),
                    (BinaryOp::Or, Value::Bool(true)) => return Ok(Value::Bool(true)),
                    _ => {}
                }
                let y = self.eval(b, lane)?;
                let operand_ty = a.ty().element();
                if self.track_overflow {
                    self.signed_overflow |= value::signed_overflow(*op, x, y, operand_ty);
                }
                Ok(value::binary(*op, x, y, operand_ty))
            }
            ExprKind::Select(c, t, f) => {
                if self.eval(c, lane)?.is_true() {
                    self.eval(t, lane)
                } else {
                    self.eval(f, lane)
                }
            }
            ExprKind::Let(name, v, body) => {
                let v = self.eval(v, lane)?;
                self.lets.push((*name, v));
                let r = self.eval(body, lane);
                self.lets.pop();
                r
            }
            ExprKind::Broadcast(v) => {
                let inner = v.ty().lanes as usize;
                self.eval(v, lane % inner)
            }
            ExprKind::Ramp(base, stride) => {
                let inner = base.ty().lanes as usize;
                let (b, s) = (
                    self.eval(base, lane % inner)?,
                    self.eval(stride, lane % inner)?,
                );
                let step = Value::Int((lane / inner) as i64);
                let step = value::cast(step, Type::i64(), ty);
                let offset = value::binary(BinaryOp::Mul, s, step, ty);
                if self.track_overflow {
                    self.signed_overflow |= value::signed_overflow(BinaryOp::Mul, s, step, ty)
                        || value::signed_overflow(BinaryOp::Add, b, offset, ty);
                }
                Ok(value::binary(BinaryOp::Add, b, offset, ty))
            }
            ExprKind::Load {
                buffer,
                index,
                predicate,
            } => {
                if let Some(p) = predicate {
                    if !self.eval(p, lane)?.is_true() {
                        return Ok(Value::zero(ty));
                    }
                }
                let i = self.eval(index, lane)?.as_i128().ok_or_else(|| {
                    Error::Runtime(format!("index of {buffer} is not an integer"))
                })?;
                self.ctx.load(*buffer, i as i64, ty)
            }
            ExprKind::Call {
                name,
                kind,
                args,
                value_index,
            } => match kind {
                CallKind::Func(link) => {
                    let coords = self.coords(args, lane)?;
                    self.ctx.call_func(link, *value_index, &coords)
                }
                CallKind::Image(_) => {
                    let coords = self.coords(args, lane)?;
                    self.ctx.call_image(*name, &coords)
                }
                CallKind::Intrinsic(Intrinsic::Interleave) => {
                    // The lets in effect hold this lane's values, not the argument's lane.
                    if !self.lets.is_empty() {
                        return Err(Error::Runtime(
                            "internal error: interleave inside a let expression".to_string(),
                        ));
                    }
                    let n = args.len();
                    self.eval(&args[lane % n], lane / n)
                }
                CallKind::Intrinsic(Intrinsic::Require { message }) => {
                    if self.eval(&args[0], lane)?.is_true() {
                        return self.eval(&args[1], lane);
                    }
                    let mut text = String::new();
                    for part in MessagePart::from_interned(*message, &args[2..]) {
                        match part {
                            MessagePart::Text(t) => text.push_str(&t),
                            MessagePart::Value(v) => {
                                text.push_str(&self.eval(&v, lane)?.to_string())
                            }
                        }
                    }
                    Err(Error::Runtime(format!("requirement failed: {text}")))
                }
                CallKind::Intrinsic(Intrinsic::Print { message }) => {
                    // The value once, also printed first (evaluating it twice would run
                    // the prints inside it twice).
                    let value = self.eval(&args[1], lane)?;
                    if self.eval(&args[0], lane)?.is_true() {
                        let mut values = vec![value];
                        for v in &args[2..] {
                            values.push(self.eval(v, lane)?);
                        }
                        let pieces: Vec<&str> = message.as_str().split(MESSAGE_VALUE_MARK).collect();
                        self.ctx.print(&printed_line(&pieces, &values));
                    }
                    Ok(value)
                }
                CallKind::Intrinsic(Intrinsic::PromiseClamped) => {
                    let v = self.eval(&args[0], lane)?;
                    let (lo, hi) = (self.eval(&args[1], lane)?, self.eval(&args[2], lane)?);
                    let arg_ty = args[0].ty().element();
                    let below = value::binary(BinaryOp::Lt, v, lo, arg_ty).is_true();
                    let above = value::binary(BinaryOp::Gt, v, hi, arg_ty).is_true();
                    if below || above {
                        let shown = [v, lo, hi].map(|v| v.to_string());
                        Err(Error::Runtime(broken_promise_message(&args[0], shown)))
                    } else {
                        Ok(v)
                    }
                }
                CallKind::Intrinsic(Intrinsic::Random) => Err(Error::Runtime(
                    "random_float and random_int can only be used in a Func's definition".to_string(),
                )),
                CallKind::Intrinsic(Intrinsic::Undef) => Err(Error::Runtime(
                    "undef has no value: it can only be a whole value of a definition, or an arm of a select that is one".to_string(),
                )),
                CallKind::Intrinsic(op) => {
                    let vals = args
                        .iter()
                        .map(|a| self.eval(a, lane))
                        .collect::<Result<Vec<_>>>()?;
                    let types: Vec<Type> = args.iter().map(|a| a.ty().element()).collect();
                    Ok(value::intrinsic(*op, &vals, &types, ty))
                }
            },
            ExprKind::Invalid(msg) => Err(Error::Type(msg.to_string())),
        }
    }
}

/// The error for `e` outside the bounds `[lo, hi]` promised of it — a Param outside its
/// declared range (`Param::set_range`) or a broken `unsafe_promise_clamped` — with the value
/// and the bounds as shown (formatted, or the placeholders of a message template).
pub fn broken_promise_message(e: &Expr, [value, lo, hi]: [String; 3]) -> String {
    match e.kind() {
        ExprKind::Param(name, _) => {
            format!("parameter {name} is {value}, outside its range [{lo}, {hi}]")
        }
        _ => format!("{e} is {value}, outside the bounds [{lo}, {hi}] promised of it"),
    }
}

/// The value of a scalar expression under `ctx`.
pub fn eval_scalar(e: &Expr, ctx: &mut dyn EvalContext) -> Result<Value> {
    ExprEval::new(ctx).eval(e, 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::var::Var;

    #[test]
    fn lanes_of_ramps_broadcasts_and_lets() {
        let x = Var::new("x");
        let env = HashMap::from([(x.name(), Value::Int(10))]);
        let mut ctx = env;
        let ramp = Expr::ramp(x.expr(), Expr::i32(3), 4);
        let e = Expr::binary(BinaryOp::Add, ramp, Expr::i32(1).broadcast_to(4));
        let lanes = ExprEval::new(&mut ctx).eval_lanes(&e).unwrap();
        assert_eq!(
            lanes,
            vec![
                Value::Int(11),
                Value::Int(14),
                Value::Int(17),
                Value::Int(20)
            ]
        );
        let t = Symbol::new("t");
        let l = Expr::let_in(
            t,
            Expr::i32(5),
            Expr::binary(BinaryOp::Mul, Expr::var(t, Type::i32()), x.expr()),
        );
        assert_eq!(eval_scalar(&l, &mut ctx).unwrap(), Value::Int(50));
    }

    #[test]
    fn interleave_takes_its_arguments_lanes_in_turn() {
        let mut ctx = HashMap::new();
        let evens = Expr::ramp(Expr::i32(0), Expr::i32(2), 3);
        let odds = Expr::ramp(Expr::i32(1), Expr::i32(2), 3);
        let e = Expr::intrinsic(
            Type::i32().with_lanes(6),
            Intrinsic::Interleave,
            vec![evens, odds],
        );
        let lanes = ExprEval::new(&mut ctx).eval_lanes(&e).unwrap();
        assert_eq!(lanes, (0..6).map(Value::Int).collect::<Vec<_>>());
    }

    #[test]
    fn signed_overflow_is_reported_but_wraps() {
        let mut ctx = HashMap::new();
        let e = Expr::binary(BinaryOp::Add, Expr::i32(i32::MAX), Expr::i32(1));
        let mut ev = ExprEval::new(&mut ctx);
        assert_eq!(ev.eval(&e, 0).unwrap(), Value::Int(i32::MIN as i64));
        assert!(ev.signed_overflow);
        let narrow = Expr::binary(BinaryOp::Add, Expr::int(127, 8), Expr::int(1, 8));
        let mut ev = ExprEval::new(&mut ctx);
        assert_eq!(ev.eval(&narrow, 0).unwrap(), Value::Int(-128));
        assert!(!ev.signed_overflow);
    }
}
