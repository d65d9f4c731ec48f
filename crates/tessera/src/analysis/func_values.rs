//! The values a Func can take (Halide's `compute_function_value_bounds`): for each Tuple
//! element of an integer Func, the interval of its values at every point, in terms of Params
//! only — the union over the pure definition and every update, each bounded with the Func's
//! coordinates and reduction variables unconstrained, and calls to Funcs bounded by the
//! values those Funcs take (which is why Funcs are visited producers first).
//!
//! Only values every stored point gets from a definition are bounded: a Func whose pure
//! definition leaves points unstored (undef), whose storage holds what the caller put there
//! or garbage, has no bound. Values computed through floats have none either: interval
//! analysis assumes floats are not NaN, and a NaN converted to an integer would break the
//! bound. Values read where nothing was computed (storage read past a region) are still not
//! bounded by this; code relying on a bound enforces it (`lower::clamp_func_values`).

use std::collections::HashMap;

use super::bounds::{simplified, Bounder, Scope};
use super::interval::{int_const, Interval};
use crate::ir::visit::{any_node, visit_exprs};
use crate::ir::{CallKind, Expr, ExprKind, Symbol, Type};
use crate::lang::function::{Definition, Function};

/// The bounds of the values of Funcs, by Func name and Tuple element.
#[derive(Clone, Debug, Default)]
pub struct FuncValueBounds {
    values: HashMap<(Symbol, usize), Interval>,
}

impl FuncValueBounds {
    /// The value bounds of `funcs`, given producers before consumers (a Func's calls to a
    /// Func not yet visited span the called Func's type).
    pub fn of_funcs<'f>(funcs: impl IntoIterator<Item = &'f Function>) -> FuncValueBounds {
        let mut bounds = FuncValueBounds::default();
        for f in funcs {
            let c = f.read();
            let Some(pure) = &c.pure else { continue };
            if c.pure_leaves_points_unstored() {
                continue;
            }
            for (index, &ty) in c.output_types.iter().enumerate() {
                if !ty.is_int_or_uint() {
                    continue;
                }
                let interval = std::iter::once(pure)
                    .chain(&c.updates)
                    .map(|d| bounds.of_value(d, index))
                    .reduce(|a, b| a.union(&b))
                    .map(simplified)
                    .unwrap_or_else(|| Interval::type_range(ty));
                let interval = Interval {
                    min: interval.min.filter(|e| tighter(e, ty, ty.int_min())),
                    max: interval.max.filter(|e| tighter(e, ty, ty.int_max())),
                };
                if !interval.is_everything() {
                    bounds.values.insert((c.name, index), interval);
                }
            }
        }
        bounds
    }

    /// The bounds of element `value_index` of Func `func`'s values, when they are tighter
    /// than its type (each end present is).
    pub fn get(&self, func: Symbol, value_index: usize) -> Option<&Interval> {
        self.values.get(&(func, value_index))
    }

    /// The interval of element `index` of `d`'s values, with every variable unconstrained.
    fn of_value(&self, d: &Definition, index: usize) -> Interval {
        let value = &d.values[index];
        let ty = value.ty().element();
        if any_node(value, |n| n.ty().is_float()) {
            return Interval::type_range(ty);
        }
        let mut scope = Scope::new();
        for e in d.args.iter().chain([value]) {
            visit_exprs(e, &mut |n| {
                if let ExprKind::Var(name) | ExprKind::RVar(name, _) = n.kind() {
                    scope.insert(*name, Interval::everything());
                }
                true
            });
        }
        let interval = Bounder::with_func_values(&scope, self).bounds(value);
        // Ends in terms of anything but Params and constants would not mean the same at a
        // call.
        let only_params = |e: &Expr| {
            !any_node(e, |n| {
                matches!(
                    n.kind(),
                    ExprKind::Var(_)
                        | ExprKind::RVar(..)
                        | ExprKind::Let(..)
                        | ExprKind::Load { .. }
                        | ExprKind::Call {
                            kind: CallKind::Func(_) | CallKind::Image(_),
                            ..
                        }
                )
            })
        };
        Interval {
            min: interval.min.filter(only_params),
            max: interval.max.filter(only_params),
        }
    }
}

/// Whether `end`, a bound of a value of integer type `ty`, says more than the type's limit
/// (32- and 64-bit types have none, as in `Interval::type_range`).
fn tighter(end: &Expr, ty: Type, limit: i128) -> bool {
    ty.bits >= 32 || *end != int_const(ty, limit)
}
