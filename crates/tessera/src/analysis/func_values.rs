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
    /// than its type: an end is present only where it is.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::func::Func;
    use crate::lang::image_param::ImageParam;
    use crate::lang::math::{cast, clamp, max, min, select};
    use crate::lang::operators::ExprOps;
    use crate::lang::param::Param;
    use crate::lang::undef::undef;
    use crate::lang::var::Var;

    /// The bounds of every value of `funcs` (producers first), printed.
    fn bounds_of(funcs: &[&Func]) -> Vec<String> {
        let bounds = FuncValueBounds::of_funcs(funcs.iter().map(|f| f.function()));
        funcs
            .iter()
            .flat_map(|f| {
                let name = f.function().name();
                (0..f.function().output_types().len()).map(move |i| (name, i))
            })
            .map(|(name, i)| match bounds.get(name, i) {
                Some(interval) => interval.to_string(),
                None => "none".to_string(),
            })
            .collect()
    }

    #[test]
    fn clamps_bound_a_func_in_terms_of_params() {
        let x = Var::new("x");
        let p = Param::<i32>::new("p");
        let f = Func::new("f");
        f.define(x, clamp(x, 10, p.expr())).unwrap();
        let g = Func::new("g");
        g.define(x, max(x, 0)).unwrap();
        assert_eq!(bounds_of(&[&f, &g]), ["[10, max(p, 10)]", "[0, +inf]"]);
    }

    #[test]
    fn calls_are_bounded_by_the_func_called() {
        let x = Var::new("x");
        let f = Func::new("f");
        f.define(x, min(x, 100)).unwrap();
        let g = Func::new("g");
        g.define(x, max(f.at(x) - 10, 0)).unwrap();
        let h = Func::new("h");
        h.define(x, g.at(g.at(x)) * 2 + f.at(x + 1) % 7).unwrap();
        assert_eq!(
            bounds_of(&[&f, &g, &h]),
            ["[-inf, 100]", "[0, 90]", "[0, 186]"]
        );
        // A callee not visited yet (given after its caller) spans its type.
        assert_eq!(bounds_of(&[&g, &f]), ["[0, +inf]", "[-inf, 100]"]);
    }

    #[test]
    fn every_definition_and_tuple_element_counts() {
        let x = Var::new("x");
        let f = Func::new("f");
        f.define(x, clamp(x, 0, 5)).unwrap();
        let r = crate::lang::rdom::RDom::new([(0, 3)]);
        f.update(r.x(), clamp(r.x() * 7, -4, 30)).unwrap();
        // A self-reading update may grow its values without end.
        let s = Func::new("s");
        s.define(x, clamp(x, 0, 5)).unwrap();
        s.update(x, s.at(x) + 1).unwrap();
        let t = Func::new("t");
        t.define(x, vec![clamp(x, 1, 2), x % 4]).unwrap();
        assert_eq!(
            bounds_of(&[&f, &s, &t]),
            ["[-4, 30]", "none", "[1, 2]", "[0, 3]"]
        );
    }

    #[test]
    fn narrow_types_floats_and_unstored_points_give_no_bound_or_a_tighter_one() {
        let x = Var::new("x");
        let input = ImageParam::new(Type::u8(), 1, "in");
        // A u8 spanning its type says nothing; half of it does (below, the type's limit
        // is left out).
        let whole = Func::new("whole");
        whole.define(x, input.at(x)).unwrap();
        let half = Func::new("half");
        half.define(x, input.at(x) / 2).unwrap();
        // Through a float, a NaN would convert to 0 whatever the float's bounds.
        let through_float = Func::new("through_float");
        through_float
            .define(
                x,
                cast(Type::i32(), clamp(cast(Type::f32(), x), 5.0f32, 6.0f32)),
            )
            .unwrap();
        // Points a guard leaves unstored hold anything.
        let guarded = Func::new("guarded");
        guarded
            .define(x, select(x.lt(3), clamp(x, 0, 9), undef::<i32>()))
            .unwrap();
        assert_eq!(
            bounds_of(&[&whole, &half, &through_float, &guarded]),
            ["none", "[-inf, (u8)127]", "none", "none"]
        );
    }
}
