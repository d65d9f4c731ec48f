//! The rewrite-rule language. Each operator family lists its rules with the `rules!` macro,
//! in the notation of Halide's `rewrite(pattern, replacement, predicate)`:
//!
//! ```text
//! Int {
//!     "x - x" => "0";
//!     "min(x, c0) < c1" => "true" if "c0 < c1";
//! }
//! Exact {
//!     "(x / c0) / c1" => "x / fold(c0 * c1)" if "c0 > 0 && c1 > 0";
//! }
//! ```
//!
//! - `x`, `y`, `z`, `w`, `u`, `v` match any subexpression (repeats must be equal);
//!   `c0`..`c5` match constants (scalars or broadcasts); integer literals and `true`/`false`
//!   match constants of exactly that value (for floats, bit for bit: `0` is not `-0.0`).
//! - Operators have Rust's precedence; `min`, `max`, `select`, `ramp`, `broadcast` and the
//!   type-preserving intrinsics (`floor`, `ceil`, `round`, `trunc`, `sqrt`, `likely`) are
//!   written as calls. A pattern's `ramp` may take a third argument, which matches its lane
//!   count (the number of steps) as a constant, for predicates: `ramp(x, c0, c2)`.
//! - In a replacement, `fold(e)` evaluates a constant expression with the evaluator's own
//!   semantics (`eval::value`), so folding cannot disagree with evaluation.
//! - A predicate is evaluated in exact integer arithmetic over the matched constants, plus
//!   `lo(e)`/`hi(e)` (constant bounds of `e`: a match, or an expression over matches such as
//!   `x % c1`, built and simplified as a replacement is), `bits(x)`, `is_int(x)`,
//!   `is_float(x)` and `is_const(x)`.
//! - The section says which operand types a rule is valid for. `Any`: every type. `Int`:
//!   integers of every width, wraparound included (folds wrap as the evaluator does); these
//!   rules are also identities in unbounded integers, so that what is known about overflow
//!   carries over to the replacement. `Exact`: integer identities that hold only without
//!   wraparound; they fire only when every matched arithmetic node is known not to wrap
//!   (`Info::no_wrap`) and every arithmetic node and fold of the replacement is proven not to.
//!   `Float`, `Bool`: those types only.
//!
//! Operands of commutative integer and bool operators are matched in both orders. A rule
//! whose replacement would be ill-typed, or needs a literal the type cannot represent, does
//! not fire. Rules are parsed once, on first use (`rule_parser.rs`); a malformed rule is an
//! internal error, and `rule_check.rs` tests every rule on random instances. Each rule counts
//! how often it fired (`rule_firings`), to find rules that real pipelines never need.

use std::sync::atomic::{AtomicU64, Ordering};

use super::fold;
use super::info::Origin;
use super::rule_parser::parse;
use super::Simplifier;
use crate::eval::value::Value;
use crate::ir::{BinaryOp, Expr, ExprKind, Intrinsic, Type, UnaryOp};

/// Which operand types a rule holds for (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Section {
    Any,
    Int,
    Exact,
    Float,
    Bool,
}

impl Section {
    pub fn admits(self, ty: Type) -> bool {
        match self {
            Section::Any => true,
            Section::Int | Section::Exact => ty.is_int_or_uint(),
            Section::Float => ty.is_float(),
            Section::Bool => ty.is_bool(),
        }
    }
}

/// One rule as written in a family's module.
pub(super) struct RuleSource {
    pub section: Section,
    pub lhs: &'static str,
    pub rhs: &'static str,
    pub predicate: Option<&'static str>,
}

/// Builds a `RuleSet` from sections of `"pattern" => "replacement" [if "predicate"];`.
macro_rules! rules {
    ($($section:ident { $($lhs:literal => $rhs:literal $(if $pred:literal)?;)* })*) => {
        $crate::simplify::rules::RuleSet::compile(&[
            $($($crate::simplify::rules::RuleSource {
                section: $crate::simplify::rules::Section::$section,
                lhs: $lhs,
                rhs: $rhs,
                predicate: rules!(@predicate $($pred)?),
            },)*)*
        ])
    };
    (@predicate) => { None };
    (@predicate $pred:literal) => { Some($pred) };
}

pub(super) const WILDCARDS: [&str; 6] = ["x", "y", "z", "w", "u", "v"];
pub(super) const CONSTANTS: usize = 6;

/// What a predicate can ask about a matched subexpression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Query {
    Lo,
    Hi,
    Bits,
    IsInt,
    IsFloat,
    IsConst,
}

/// A parsed pattern, replacement or predicate.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Pat {
    Wild(usize),
    Const(usize),
    Int(i64),
    Bool(bool),
    Binary(BinaryOp, Box<Pat>, Box<Pat>),
    Unary(UnaryOp, Box<Pat>),
    Select(Box<Pat>, Box<Pat>, Box<Pat>),
    /// Base, stride and (in patterns, optionally) the lane count.
    Ramp(Box<Pat>, Box<Pat>, Option<Box<Pat>>),
    Broadcast(Box<Pat>),
    Intrinsic(Intrinsic, Vec<Pat>),
    Fold(Box<Pat>),
    Query(Query, Box<Pat>),
}

/// One compiled rule.
pub(super) struct Rule {
    pub section: Section,
    pub lhs: Pat,
    pub rhs: Pat,
    pub predicate: Option<Pat>,
    /// The rule as written, for reports and test failure messages.
    pub text: String,
    /// How many times the rule has rewritten an expression, in this process.
    pub firings: AtomicU64,
}

/// A family's rules, tried in order; the first that matches and whose predicate holds wins.
pub(super) struct RuleSet {
    pub rules: Vec<Rule>,
}

impl RuleSet {
    pub fn compile(sources: &[RuleSource]) -> RuleSet {
        let parse = |text: &str, what: &str| {
            parse(text)
                .unwrap_or_else(|err| panic!("internal error: bad rule {what} `{text}`: {err}"))
        };
        let rules = sources
            .iter()
            .map(|r| Rule {
                section: r.section,
                lhs: parse(r.lhs, "pattern"),
                rhs: parse(r.rhs, "replacement"),
                predicate: r.predicate.map(|p| parse(p, "predicate")),
                text: match r.predicate {
                    Some(p) => format!("{:?}: {} => {} if {}", r.section, r.lhs, r.rhs, p),
                    None => format!("{:?}: {} => {}", r.section, r.lhs, r.rhs),
                },
                firings: AtomicU64::new(0),
            })
            .collect();
        RuleSet { rules }
    }

    pub fn len(&self) -> usize {
        self.rules.len()
    }

    /// The result of the first rule that rewrites `e`, fully simplified.
    pub fn apply(&self, s: &mut Simplifier, e: &Expr) -> Option<Expr> {
        self.rules.iter().find_map(|r| r.apply(s, e))
    }
}

impl Rule {
    /// The rewrite of `e` by this rule alone, if it applies.
    pub fn apply(&self, s: &mut Simplifier, e: &Expr) -> Option<Expr> {
        let operand = operand_type(e);
        if !self.section.admits(operand) {
            return None;
        }
        let float = operand.is_float();
        // Most rules fail on the shape alone: reject them without building matches.
        if !self.lhs.may_match(e, float) {
            return None;
        }
        let result = Match::default()
            .extend(&self.lhs, e, float)
            .into_iter()
            .find_map(|m| try_rule(s, self, &m, e));
        if result.is_some() {
            self.firings.fetch_add(1, Ordering::Relaxed);
        }
        result
    }
}

/// The rewrite of `e` by `rule` under match `m`, if the rule's conditions hold.
fn try_rule(s: &mut Simplifier, rule: &Rule, m: &Match, e: &Expr) -> Option<Expr> {
    let lhs_no_wrap = m.interior.iter().all(|n| s.info(n).no_wrap);
    if rule.section == Section::Exact && !lhs_no_wrap {
        return None;
    }
    if let Some(p) = &rule.predicate {
        if m.evaluate(s, p) != Some(1) {
            return None;
        }
    }
    let identity_in_integers = matches!(rule.section, Section::Int | Section::Exact);
    let mut build = Build {
        m,
        no_wrap: true,
        lanes_exact: lhs_no_wrap && identity_in_integers,
    };
    let (result, fresh) = build.root(s, &rule.rhs, e)?;
    if rule.section == Section::Exact && !build.no_wrap {
        return None;
    }
    if !fresh {
        return Some(result);
    }
    Some(s.finish_rewrite(e, &result, lhs_no_wrap && build.no_wrap))
}

/// The type a rule's section is checked against: the operands' type for comparisons and
/// logical operators, the values' type for selects, the element type otherwise.
pub(super) fn operand_type(e: &Expr) -> Type {
    match e.kind() {
        ExprKind::Binary(_, a, _) | ExprKind::Unary(_, a) => a.ty().element(),
        ExprKind::Select(_, t, _) => t.ty().element(),
        ExprKind::Call { args, .. } if !args.is_empty() => args[0].ty().element(),
        _ => e.ty().element(),
    }
}

fn is_commutative_for(op: BinaryOp, ty: Type, float: bool) -> bool {
    // Float min/max pick by a comparison that fails on NaN, and swapping float additions
    // could change which NaN payload survives.
    op.is_commutative() && !float && !ty.is_float()
}

impl Pat {
    /// The type of the expression `p` stands for when its operands have type `operand`.
    pub fn result_type(&self, operand: Type) -> Type {
        match self {
            Pat::Binary(op, ..) if op.is_comparison() || op.is_logical() => Type::bool_(),
            Pat::Unary(UnaryOp::Not, _) => Type::bool_(),
            _ => operand,
        }
    }

    /// Whether `e` has this pattern's shape — operators, literals and constants where the
    /// pattern has them — ignoring whether repeated wildcards bind equal expressions: a
    /// cheap necessary condition for `Match::extend` to find a match.
    fn may_match(&self, e: &Expr, float: bool) -> bool {
        match (self, e.kind()) {
            (Pat::Wild(_), _) => true,
            (Pat::Const(_), _) => is_scalar_constant(e),
            (Pat::Int(v), _) => is_literal(e, *v),
            (Pat::Bool(b), _) => e.ty().is_bool() && e.as_int_const() == Some(*b as i128),
            (Pat::Binary(op, pa, pb), ExprKind::Binary(eop, a, b)) if op == eop => {
                (pa.may_match(a, float) && pb.may_match(b, float))
                    || (is_commutative_for(*op, a.ty(), float)
                        && pa.may_match(b, float)
                        && pb.may_match(a, float))
            }
            (Pat::Unary(op, pa), ExprKind::Unary(eop, a)) if op == eop => pa.may_match(a, float),
            (Pat::Select(pc, pt, pf), ExprKind::Select(c, t, f)) => {
                pc.may_match(c, float) && pt.may_match(t, float) && pf.may_match(f, float)
            }
            (Pat::Ramp(pb, ps, _), ExprKind::Ramp(b, st)) => {
                pb.may_match(b, float) && ps.may_match(st, float)
            }
            (Pat::Broadcast(pa), ExprKind::Broadcast(a)) => pa.may_match(a, float),
            (
                Pat::Intrinsic(op, pargs),
                ExprKind::Call {
                    kind: crate::ir::CallKind::Intrinsic(eop),
                    args,
                    ..
                },
            ) if op == eop && pargs.len() == args.len() => {
                pargs.iter().zip(args).all(|(p, a)| p.may_match(a, float))
            }
            _ => false,
        }
    }
}

#[derive(Default, Clone)]
struct Match {
    wild: [Option<Expr>; WILDCARDS.len()],
    constants: [Option<Expr>; CONSTANTS],
    /// The matched nodes that are not wildcards, for the no-wraparound check.
    interior: Vec<Expr>,
}

impl Match {
    /// Every way of extending `self` so that `p` matches `e` (commutative operators match
    /// in both operand orders, so there can be several).
    fn extend(self, p: &Pat, e: &Expr, float: bool) -> Vec<Match> {
        let mut m = self;
        let one = |ok: bool, m: Match| if ok { vec![m] } else { Vec::new() };
        match (p, e.kind()) {
            (Pat::Wild(i), _) => match &m.wild[*i] {
                Some(bound) => {
                    let ok = bound == e;
                    one(ok, m)
                }
                None => {
                    m.wild[*i] = Some(e.clone());
                    vec![m]
                }
            },
            (Pat::Const(i), _) => match &m.constants[*i] {
                _ if !is_scalar_constant(e) => Vec::new(),
                Some(bound) => {
                    let ok = bound == e;
                    one(ok, m)
                }
                None => {
                    m.constants[*i] = Some(e.clone());
                    vec![m]
                }
            },
            (Pat::Int(v), _) => one(is_literal(e, *v), m),
            (Pat::Bool(b), _) => one(e.ty().is_bool() && e.as_int_const() == Some(*b as i128), m),
            (Pat::Binary(op, pa, pb), ExprKind::Binary(eop, a, b)) if op == eop => {
                m.interior.push(e.clone());
                let mut out = m.clone().extend_all(&[(&**pa, a), (&**pb, b)], float);
                if is_commutative_for(*op, a.ty(), float) {
                    out.extend(m.extend_all(&[(&**pa, b), (&**pb, a)], float));
                }
                out
            }
            (Pat::Unary(op, pa), ExprKind::Unary(eop, a)) if op == eop => {
                m.interior.push(e.clone());
                m.extend(pa, a, float)
            }
            (Pat::Select(pc, pt, pf), ExprKind::Select(c, t, f)) => {
                m.interior.push(e.clone());
                m.extend_all(&[(&**pc, c), (&**pt, t), (&**pf, f)], float)
            }
            (Pat::Ramp(pb, ps, pl), ExprKind::Ramp(b, st)) => {
                m.interior.push(e.clone());
                let count = Expr::i32(i32::from(e.ty().lanes / b.ty().lanes));
                match pl {
                    Some(pl) => m.extend_all(&[(&**pb, b), (&**ps, st), (&**pl, &count)], float),
                    None => m.extend_all(&[(&**pb, b), (&**ps, st)], float),
                }
            }
            (Pat::Broadcast(pa), ExprKind::Broadcast(a)) => {
                m.interior.push(e.clone());
                m.extend(pa, a, float)
            }
            (
                Pat::Intrinsic(op, pargs),
                ExprKind::Call {
                    kind: crate::ir::CallKind::Intrinsic(eop),
                    args,
                    ..
                },
            ) if op == eop && pargs.len() == args.len() => {
                m.interior.push(e.clone());
                let pairs: Vec<(&Pat, &Expr)> = pargs.iter().zip(args).collect();
                m.extend_all(&pairs, float)
            }
            _ => Vec::new(),
        }
    }

    /// Every way of matching each pattern against its expression, left to right.
    fn extend_all(self, pairs: &[(&Pat, &Expr)], float: bool) -> Vec<Match> {
        let mut states = vec![self];
        for (p, e) in pairs {
            states = states
                .into_iter()
                .flat_map(|m| m.extend(p, e, float))
                .collect();
        }
        states
    }

    /// The (simplified) expression `p` stands for under this match, for a query about it.
    fn instantiate(&self, s: &mut Simplifier, p: &Pat) -> Option<Expr> {
        let mut build = Build {
            m: self,
            no_wrap: true,
            lanes_exact: false,
        };
        let ty = build.infer(p)?;
        build.build(s, p, ty)
    }

    fn bound(&self, p: &Pat) -> Option<&Expr> {
        match p {
            Pat::Wild(i) => self.wild[*i].as_ref(),
            Pat::Const(i) => self.constants[*i].as_ref(),
            _ => None,
        }
    }

    /// A predicate's value in exact integer arithmetic (bools are 0 and 1).
    fn evaluate(&self, s: &mut Simplifier, p: &Pat) -> Option<i128> {
        use BinaryOp::*;
        Some(match p {
            Pat::Const(_) => {
                let e = self.bound(p)?;
                e.as_int_const()?
            }
            Pat::Int(v) => *v as i128,
            Pat::Bool(b) => *b as i128,
            Pat::Query(q, arg) => {
                let e = match self.bound(arg) {
                    Some(e) => e.clone(),
                    None => self.instantiate(s, arg)?,
                };
                match q {
                    Query::Lo | Query::Hi if e.ty().is_float() => return None,
                    Query::Lo => s.info(&e).lo,
                    Query::Hi => s.info(&e).hi,
                    Query::Bits => e.ty().bits as i128,
                    Query::IsInt => e.ty().is_int_or_uint() as i128,
                    Query::IsFloat => e.ty().is_float() as i128,
                    Query::IsConst => e.is_const() as i128,
                }
            }
            Pat::Unary(UnaryOp::Neg, a) => self.evaluate(s, a)?.checked_neg()?,
            Pat::Unary(UnaryOp::Not, a) => (self.evaluate(s, a)? == 0) as i128,
            Pat::Binary(op, a, b) => {
                let x = self.evaluate(s, a)?;
                if *op == And && x == 0 {
                    return Some(0);
                }
                if *op == Or && x != 0 {
                    return Some(1);
                }
                let y = self.evaluate(s, b)?;
                match op {
                    Add => x.checked_add(y)?,
                    Sub => x.checked_sub(y)?,
                    Mul => x.checked_mul(y)?,
                    Div => x.checked_div_euclid(y)?,
                    Mod => x.checked_rem_euclid(y)?,
                    Min => x.min(y),
                    Max => x.max(y),
                    Eq => (x == y) as i128,
                    Ne => (x != y) as i128,
                    Lt => (x < y) as i128,
                    Le => (x <= y) as i128,
                    Gt => (x > y) as i128,
                    Ge => (x >= y) as i128,
                    And | Or => (y != 0) as i128,
                    BitAnd => x & y,
                    BitOr => x | y,
                    BitXor => x ^ y,
                    Shl | Shr => return None,
                }
            }
            _ => return None,
        })
    }
}

fn is_scalar_constant(e: &Expr) -> bool {
    match e.kind() {
        ExprKind::IntImm(_) | ExprKind::UIntImm(_) | ExprKind::FloatImm(_) => true,
        ExprKind::Broadcast(v) => is_scalar_constant(v),
        _ => false,
    }
}

fn is_literal(e: &Expr, v: i64) -> bool {
    if e.ty().is_bool() {
        return false;
    }
    if e.ty().is_float() {
        let want = Expr::make_float(e.ty().element(), v as f64).as_float_const();
        return matches!((e.as_float_const(), want), (Some(a), Some(b)) if a.to_bits() == b.to_bits());
    }
    e.as_int_const() == Some(v as i128)
}

/// Instantiates a replacement, simplifying every node it builds.
struct Build<'a> {
    m: &'a Match,
    /// Whether every arithmetic node built (and every fold) was free of wraparound.
    no_wrap: bool,
    /// Whether the matched expression's lanes are its values in unbounded integers (no
    /// matched node wraps) and the rule is an identity in unbounded integers: then so are
    /// the replacement's lanes.
    lanes_exact: bool,
}

impl Build<'_> {
    /// The replacement for `e`, and whether it is a new node. A new root is returned
    /// unsimplified (the caller first records what the rule proved about it); everything
    /// below it is simplified.
    fn root(&mut self, s: &mut Simplifier, p: &Pat, e: &Expr) -> Option<(Expr, bool)> {
        let ty = e.ty();
        match p {
            Pat::Wild(_) | Pat::Const(_) | Pat::Int(_) | Pat::Bool(_) | Pat::Fold(_) => {
                Some((self.leaf(p, ty)?, false))
            }
            // The base of a ramp is its first lane: with exact lanes, an operation on matched
            // parts computing it does not wrap (the base of `ramp(x, y) + broadcast(z)`
            // rewritten is `x + z`, the exact first lane).
            Pat::Ramp(base, stride, _) if self.lanes_exact && is_one_operation(base) => {
                Some((self.ramp(s, base, stride, ty, Origin::Proven)?, true))
            }
            _ => Some((self.node(s, p, ty)?, true)),
        }
    }

    fn infer(&self, p: &Pat) -> Option<Type> {
        match p {
            Pat::Wild(_) | Pat::Const(_) => self.m.bound(p).map(|e| e.ty()),
            Pat::Bool(_) => Some(Type::bool_()),
            Pat::Binary(op, a, b) if op.is_comparison() => {
                let t = self.infer(a).or_else(|| self.infer(b))?;
                Some(Type::bool_().with_lanes(t.lanes))
            }
            Pat::Binary(_, a, b) | Pat::Select(_, a, b) => self.infer(a).or_else(|| self.infer(b)),
            Pat::Unary(_, a) | Pat::Fold(a) => self.infer(a),
            Pat::Intrinsic(_, args) => args.iter().find_map(|a| self.infer(a)),
            _ => None,
        }
    }

    fn leaf(&mut self, p: &Pat, ty: Type) -> Option<Expr> {
        let e = match p {
            Pat::Wild(_) => self.m.bound(p)?.clone(),
            Pat::Const(_) => {
                let c = self.m.bound(p)?;
                scalar_of(c).broadcast_to(ty.lanes / scalar_of(c).ty().lanes)
            }
            Pat::Int(v) => {
                if ty.is_bool() || (!ty.is_float() && !ty.can_represent_int(*v as i128)) {
                    return None;
                }
                Expr::make_const(ty, *v)
            }
            Pat::Bool(b) => Expr::bool_(*b).broadcast_to(ty.lanes),
            Pat::Fold(inner) => {
                let (v, wrapped) = self.fold(inner, ty.element())?;
                self.no_wrap &= !wrapped;
                v.to_expr(ty.element()).broadcast_to(ty.lanes)
            }
            _ => return None,
        };
        (e.ty() == ty).then_some(e)
    }

    /// A constant expression's value and whether any step wrapped around.
    fn fold(&self, p: &Pat, ty: Type) -> Option<(Value, bool)> {
        match p {
            Pat::Const(_) => {
                let c = scalar_of(self.m.bound(p)?);
                (c.ty() == ty).then(|| (Value::from_const(&c).expect("constant"), false))
            }
            Pat::Int(v) => {
                if !ty.is_float() && !ty.can_represent_int(*v as i128) {
                    return None;
                }
                Some((Value::from_const(&Expr::make_const(ty, *v))?, false))
            }
            Pat::Bool(b) => ty.is_bool().then_some((Value::Bool(*b), false)),
            Pat::Unary(op, a) => {
                let (x, wa) = self.fold(a, ty)?;
                let (v, w) = fold::unary(*op, x, ty);
                Some((v, wa || w))
            }
            Pat::Binary(op, a, b) => {
                let operand = if op.is_comparison() {
                    self.infer(a).or_else(|| self.infer(b))?.element()
                } else {
                    ty
                };
                let (x, wa) = self.fold(a, operand)?;
                let (y, wb) = self.fold(b, operand)?;
                let (v, w) = fold::binary(*op, x, y, operand);
                Some((v, wa || wb || w))
            }
            _ => None,
        }
    }

    fn build(&mut self, s: &mut Simplifier, p: &Pat, ty: Type) -> Option<Expr> {
        self.build_as(s, p, ty, Origin::Derived)
    }

    /// `build`, with what is known about the new node's wraparound.
    fn build_as(&mut self, s: &mut Simplifier, p: &Pat, ty: Type, origin: Origin) -> Option<Expr> {
        match p {
            Pat::Wild(_) | Pat::Const(_) | Pat::Int(_) | Pat::Bool(_) | Pat::Fold(_) => {
                self.leaf(p, ty)
            }
            _ => {
                let e = self.node(s, p, ty)?;
                // A part of the match rebuilt as it was (`x + c0` of `min(x + c0, ..)`) is
                // that node, with what is known about it (the overflow contract of the input).
                if let Some(matched) = self.m.interior.iter().find(|n| **n == e) {
                    self.no_wrap &= s.info(matched).no_wrap;
                    return Some(matched.clone());
                }
                self.no_wrap &= s.record(&e, origin).no_wrap;
                Some(s.rewrite(&e))
            }
        }
    }

    /// `ramp(base, stride)` of type `ty`, its base built as `base_origin` says.
    fn ramp(
        &mut self,
        s: &mut Simplifier,
        base: &Pat,
        stride: &Pat,
        ty: Type,
        base_origin: Origin,
    ) -> Option<Expr> {
        let part = self.infer(base).unwrap_or(ty.element());
        let count = lane_factor(ty.lanes, part.lanes)?;
        let b = self.build_as(s, base, part, base_origin)?;
        let st = self.build(s, stride, part)?;
        if b.ty() != st.ty() {
            return None;
        }
        let e = Expr::ramp(b, st, count);
        (e.ty() == ty).then_some(e)
    }

    /// The node for `p` (of type `ty`) over simplified children.
    fn node(&mut self, s: &mut Simplifier, p: &Pat, ty: Type) -> Option<Expr> {
        let lanes = ty.lanes;
        let e = match p {
            Pat::Binary(op, a, b) => {
                let operand = if op.is_comparison() {
                    self.infer(a).or_else(|| self.infer(b))?
                } else {
                    ty
                };
                let x = self.build(s, a, operand)?;
                let y = self.build(s, b, operand)?;
                if x.ty() != y.ty() {
                    return None;
                }
                Expr::binary(*op, x, y)
            }
            Pat::Unary(op, a) => Expr::unary(*op, self.build(s, a, ty)?),
            Pat::Select(c, t, f) => {
                let c = self.build(s, c, Type::bool_().with_lanes(lanes))?;
                let (t, f) = (self.build(s, t, ty)?, self.build(s, f, ty)?);
                Expr::select(c, t, f)
            }
            Pat::Ramp(base, stride, _) => self.ramp(s, base, stride, ty, Origin::Derived)?,
            Pat::Broadcast(a) => {
                let part = self.infer(a).unwrap_or(ty.element());
                let count = lane_factor(lanes, part.lanes)?;
                self.build(s, a, part)?.broadcast_to(count)
            }
            Pat::Intrinsic(op, args) => {
                let args = args
                    .iter()
                    .map(|a| self.build(s, a, ty))
                    .collect::<Option<Vec<_>>>()?;
                Expr::intrinsic(ty, *op, args)
            }
            _ => return None,
        };
        (e.ty() == ty).then_some(e)
    }
}

/// Whether `p` is one operator applied to matched parts and literals.
fn is_one_operation(p: &Pat) -> bool {
    let leaf = |p: &Pat| matches!(p, Pat::Wild(_) | Pat::Const(_) | Pat::Int(_));
    match p {
        Pat::Binary(_, a, b) => leaf(a) && leaf(b),
        Pat::Unary(_, a) => leaf(a),
        _ => false,
    }
}

/// How many copies of a `part`-lane vector make `total` lanes, if a whole number.
fn lane_factor(total: u16, part: u16) -> Option<u16> {
    let count = total.checked_div(part)?;
    (count * part == total).then_some(count)
}

/// The scalar inside a constant (looking through broadcasts).
fn scalar_of(c: &Expr) -> Expr {
    match c.kind() {
        ExprKind::Broadcast(v) => scalar_of(v),
        _ => c.clone(),
    }
}
