//! How directives name loops: [`DimName`] (a Var, an RVar or a name) and [`DimList`] (the
//! loops a `reorder` lists, in an array, a `Vec` or a tuple mixing them).

use crate::ir::Symbol;
use crate::lang::rdom::RVar;
use crate::lang::var::Var;

/// A loop dimension named in a directive: a Var, an RVar, or a name.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DimName(pub Symbol);

impl From<Var> for DimName {
    fn from(v: Var) -> DimName {
        DimName(v.name())
    }
}
impl From<&Var> for DimName {
    fn from(v: &Var) -> DimName {
        DimName(v.name())
    }
}
impl From<RVar> for DimName {
    fn from(v: RVar) -> DimName {
        DimName(v.name())
    }
}
impl From<&RVar> for DimName {
    fn from(v: &RVar) -> DimName {
        DimName(v.name())
    }
}
impl From<&str> for DimName {
    fn from(v: &str) -> DimName {
        DimName(Symbol::new(v))
    }
}

impl From<&DimName> for DimName {
    fn from(d: &DimName) -> DimName {
        *d
    }
}

/// The loops a `reorder` lists, innermost first: an array or `Vec` of Vars, RVars or names
/// (`[x, y]`, `["xi", "yi"]`), a tuple mixing them (`(r.x(), x, "yo")`, where Halide writes
/// `reorder(r.x, x, yo)`), or a slice of [`DimName`]s.
pub trait DimList {
    /// The loops' names, in the order listed.
    fn dim_names(self) -> Vec<Symbol>;
}

impl<T: Into<DimName>, const N: usize> DimList for [T; N] {
    fn dim_names(self) -> Vec<Symbol> {
        self.into_iter().map(|d| d.into().0).collect()
    }
}

impl<T: Into<DimName>> DimList for Vec<T> {
    fn dim_names(self) -> Vec<Symbol> {
        self.into_iter().map(|d| d.into().0).collect()
    }
}

/// The spelling `reorder(["x", "y"])` of earlier releases (an array of one
/// element type is simpler: `reorder(["x", "y"])`).
impl<const N: usize> DimList for &[DimName; N] {
    fn dim_names(self) -> Vec<Symbol> {
        self.iter().map(|d| d.0).collect()
    }
}

impl DimList for &Vec<DimName> {
    fn dim_names(self) -> Vec<Symbol> {
        self.iter().map(|d| d.0).collect()
    }
}

impl DimList for &[DimName] {
    fn dim_names(self) -> Vec<Symbol> {
        self.iter().map(|d| d.0).collect()
    }
}

/// `DimList` for tuples of up to eight Vars, RVars and names, in any mix.
macro_rules! dim_list_tuples {
    ($(($($t:ident),+))*) => {
        $(
            impl<$($t: Into<DimName>),+> DimList for ($($t,)+) {
                #[allow(non_snake_case)]
                fn dim_names(self) -> Vec<Symbol> {
                    let ($($t,)+) = self;
                    vec![$($t.into().0),+]
                }
            }
        )*
    };
}

dim_list_tuples! {
    (A, B)
    (A, B, C)
    (A, B, C, D)
    (A, B, C, D, E)
    (A, B, C, D, E, F)
    (A, B, C, D, E, F, G)
    (A, B, C, D, E, F, G, H)
}
