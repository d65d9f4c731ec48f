//! The rule language's parser: text to `Pat` (patterns, replacements and predicates, with
//! Rust's operator precedence), and concrete expressions in the same notation for the
//! simplifier's text test cases (`parse_expr`).

use super::rules::{Pat, Query, CONSTANTS, WILDCARDS};
use crate::ir::{BinaryOp, Expr, Intrinsic, Symbol, Type, UnaryOp};

/// Parses a rule's pattern, replacement or predicate.
pub(super) fn parse(text: &str) -> Result<Pat, String> {
    Parser::parse(text)
}

/// A concrete expression written in the rule language: the wildcard names `x`, `y`, `z`, `w`,
/// `u`, `v` are variables of type `ty`, integer literals are constants of `ty`, comparisons
/// compare values of `ty` and give bools (for the operands of `&&`, `||`, `!` and select
/// conditions). Constant wildcards, `fold`, queries and vectors are for rules only.
pub(super) fn parse_expr(text: &str, ty: Type) -> Result<Expr, String> {
    let p = parse(text)?;
    concrete(&p, p.result_type(ty), ty)
}

/// The expression `p` stands for, of type `want`, over variables of type `ty`.
fn concrete(p: &Pat, want: Type, ty: Type) -> Result<Expr, String> {
    let bool_ = Type::bool_();
    let expect = |got: Type| {
        if got == want {
            Ok(())
        } else {
            Err(format!("`{p:?}` is {got}, but {want} is needed here"))
        }
    };
    Ok(match p {
        Pat::Wild(i) => {
            expect(ty)?;
            Expr::var(Symbol::new(WILDCARDS[*i]), ty)
        }
        Pat::Int(v) => {
            if want.is_bool() || (want.is_int_or_uint() && !want.can_represent_int(*v as i128)) {
                return Err(format!("{v} is not a constant of type {want}"));
            }
            Expr::make_const(want, *v)
        }
        Pat::Bool(b) => {
            expect(bool_)?;
            Expr::bool_(*b)
        }
        Pat::Binary(op, a, b) => {
            let operand = if op.is_comparison() {
                expect(bool_)?;
                ty
            } else {
                want
            };
            Expr::binary(*op, concrete(a, operand, ty)?, concrete(b, operand, ty)?)
        }
        Pat::Unary(op, a) => Expr::unary(*op, concrete(a, want, ty)?),
        Pat::Select(c, t, f) => Expr::select(
            concrete(c, bool_, ty)?,
            concrete(t, want, ty)?,
            concrete(f, want, ty)?,
        ),
        Pat::Intrinsic(op, args) => {
            let args = args
                .iter()
                .map(|a| concrete(a, want, ty))
                .collect::<Result<Vec<_>, _>>()?;
            Expr::intrinsic(want, *op, args)
        }
        Pat::Const(_) | Pat::Fold(_) | Pat::Query(..) | Pat::Ramp(..) | Pat::Broadcast(_) => {
            return Err(format!("`{p:?}` is only meaningful in a rule"))
        }
    })
}

struct Parser<'a> {
    tokens: Vec<&'a str>,
    pos: usize,
}

fn tokenize(text: &str) -> Result<Vec<&str>, String> {
    const TWO_CHAR: [&str; 8] = ["<=", ">=", "==", "!=", "&&", "||", "<<", ">>"];
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i] as char;
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_alphanumeric() || c == '_' {
            let start = i;
            while i < bytes.len()
                && ((bytes[i] as char).is_ascii_alphanumeric() || bytes[i] == b'_')
            {
                i += 1;
            }
            out.push(&text[start..i]);
        } else if i + 1 < bytes.len() && TWO_CHAR.contains(&&text[i..i + 2]) {
            out.push(&text[i..i + 2]);
            i += 2;
        } else if "+-*/%<>!~&|^(),".contains(c) {
            out.push(&text[i..i + 1]);
            i += 1;
        } else {
            return Err(format!("unexpected character `{c}`"));
        }
    }
    Ok(out)
}

/// Binary operators by precedence level, loosest first (Rust's precedence).
const LEVELS: [&[(&str, BinaryOp)]; 9] = [
    &[("||", BinaryOp::Or)],
    &[("&&", BinaryOp::And)],
    &[
        ("==", BinaryOp::Eq),
        ("!=", BinaryOp::Ne),
        ("<", BinaryOp::Lt),
        ("<=", BinaryOp::Le),
        (">", BinaryOp::Gt),
        (">=", BinaryOp::Ge),
    ],
    &[("|", BinaryOp::BitOr)],
    &[("^", BinaryOp::BitXor)],
    &[("&", BinaryOp::BitAnd)],
    &[("<<", BinaryOp::Shl), (">>", BinaryOp::Shr)],
    &[("+", BinaryOp::Add), ("-", BinaryOp::Sub)],
    &[
        ("*", BinaryOp::Mul),
        ("/", BinaryOp::Div),
        ("%", BinaryOp::Mod),
    ],
];

impl<'a> Parser<'a> {
    fn parse(text: &'a str) -> Result<Pat, String> {
        let mut p = Parser {
            tokens: tokenize(text)?,
            pos: 0,
        };
        let pat = p.level(0)?;
        match p.peek() {
            None => Ok(pat),
            Some(t) => Err(format!("unexpected `{t}`")),
        }
    }

    fn peek(&self) -> Option<&'a str> {
        self.tokens.get(self.pos).copied()
    }

    fn expect(&mut self, t: &str) -> Result<(), String> {
        if self.peek() == Some(t) {
            self.pos += 1;
            Ok(())
        } else {
            Err(format!("expected `{t}`, found {:?}", self.peek()))
        }
    }

    fn level(&mut self, n: usize) -> Result<Pat, String> {
        if n == LEVELS.len() {
            return self.unary();
        }
        let mut lhs = self.level(n + 1)?;
        while let Some(&(_, op)) = LEVELS[n].iter().find(|(t, _)| Some(*t) == self.peek()) {
            self.pos += 1;
            let rhs = self.level(n + 1)?;
            lhs = Pat::Binary(op, Box::new(lhs), Box::new(rhs));
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<Pat, String> {
        let op = match self.peek() {
            Some("-") => UnaryOp::Neg,
            Some("!") => UnaryOp::Not,
            Some("~") => UnaryOp::BitNot,
            _ => return self.primary(),
        };
        self.pos += 1;
        let operand = self.unary()?;
        Ok(match (op, operand) {
            (UnaryOp::Neg, Pat::Int(v)) => Pat::Int(-v),
            (op, operand) => Pat::Unary(op, Box::new(operand)),
        })
    }

    fn args(&mut self) -> Result<Vec<Pat>, String> {
        self.expect("(")?;
        let mut args = vec![self.level(0)?];
        while self.peek() == Some(",") {
            self.pos += 1;
            args.push(self.level(0)?);
        }
        self.expect(")")?;
        Ok(args)
    }

    fn primary(&mut self) -> Result<Pat, String> {
        let t = self.peek().ok_or("unexpected end")?;
        self.pos += 1;
        if t == "(" {
            let p = self.level(0)?;
            self.expect(")")?;
            return Ok(p);
        }
        if let Ok(v) = t.parse::<i64>() {
            return Ok(Pat::Int(v));
        }
        if let Some(i) = WILDCARDS.iter().position(|w| *w == t) {
            return Ok(Pat::Wild(i));
        }
        if let Some(i) = t.strip_prefix('c').and_then(|d| d.parse::<usize>().ok()) {
            return if i < CONSTANTS {
                Ok(Pat::Const(i))
            } else {
                Err(format!("too many constant wildcards: {t}"))
            };
        }
        match t {
            "true" => return Ok(Pat::Bool(true)),
            "false" => return Ok(Pat::Bool(false)),
            _ => {}
        }
        let mut args = self.args()?;
        let arity = |n: usize, args: &Vec<Pat>| {
            if args.len() == n {
                Ok(())
            } else {
                Err(format!("{t} takes {n} arguments"))
            }
        };
        let query = |q: Query, mut args: Vec<Pat>| -> Result<Pat, String> {
            arity(1, &args)?;
            Ok(Pat::Query(q, Box::new(args.remove(0))))
        };
        let intrinsic = |op: Intrinsic, args: Vec<Pat>| -> Result<Pat, String> {
            arity(1, &args)?;
            Ok(Pat::Intrinsic(op, args))
        };
        match t {
            "min" | "max" => {
                arity(2, &args)?;
                let op = if t == "min" {
                    BinaryOp::Min
                } else {
                    BinaryOp::Max
                };
                let b = args.pop().expect("two arguments");
                let a = args.pop().expect("two arguments");
                Ok(Pat::Binary(op, Box::new(a), Box::new(b)))
            }
            "select" => {
                arity(3, &args)?;
                let f = args.pop().expect("three arguments");
                let tv = args.pop().expect("three arguments");
                let c = args.pop().expect("three arguments");
                Ok(Pat::Select(Box::new(c), Box::new(tv), Box::new(f)))
            }
            "ramp" => {
                if !(2..=3).contains(&args.len()) {
                    return Err("ramp takes 2 or 3 arguments".to_string());
                }
                let lanes = (args.len() == 3).then(|| Box::new(args.pop().expect("three")));
                let s = args.pop().expect("two arguments");
                let b = args.pop().expect("two arguments");
                Ok(Pat::Ramp(Box::new(b), Box::new(s), lanes))
            }
            "broadcast" => {
                arity(1, &args)?;
                Ok(Pat::Broadcast(Box::new(args.remove(0))))
            }
            "fold" => {
                arity(1, &args)?;
                Ok(Pat::Fold(Box::new(args.remove(0))))
            }
            "lo" => query(Query::Lo, args),
            "hi" => query(Query::Hi, args),
            "bits" => query(Query::Bits, args),
            "is_int" => query(Query::IsInt, args),
            "is_float" => query(Query::IsFloat, args),
            "is_const" => query(Query::IsConst, args),
            "floor" => intrinsic(Intrinsic::Floor, args),
            "ceil" => intrinsic(Intrinsic::Ceil, args),
            "round" => intrinsic(Intrinsic::Round, args),
            "trunc" => intrinsic(Intrinsic::Trunc, args),
            "sqrt" => intrinsic(Intrinsic::Sqrt, args),
            "likely" => intrinsic(Intrinsic::Likely, args),
            _ => Err(format!("unknown function `{t}`")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_with_rust_precedence() {
        let p = Parser::parse("x + c0 * 2 < min(y, -1) && !z").unwrap();
        let Pat::Binary(BinaryOp::And, lhs, rhs) = p else {
            panic!("wrong root")
        };
        assert!(matches!(*lhs, Pat::Binary(BinaryOp::Lt, _, _)));
        assert!(matches!(*rhs, Pat::Unary(UnaryOp::Not, _)));
        assert!(Parser::parse("x +").is_err());
        assert!(Parser::parse("foo(x)").is_err());
    }

    #[test]
    fn concrete_expressions_type_their_variables_and_literals() {
        let e = parse_expr("min(x - 32, y) + 31 < z", Type::i16()).unwrap();
        assert_eq!(e.ty(), Type::bool_());
        assert_eq!(e.to_string(), "min(x - (i16)32, y) + (i16)31 < z");
        assert!(parse_expr("x + c0", Type::i32()).is_err());
        assert!(parse_expr("x && y", Type::i32()).is_err());
        assert!(parse_expr("x + 300", Type::u8()).is_err());
    }
}
