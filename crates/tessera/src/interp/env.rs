//! The names an executing statement can see: scalar parameters (bound by the caller, including
//! the `name.min.d`/`name.extent.d`/`name.stride.d` fields of bound buffers) and the scoped
//! bindings of `LetStmt`s and loop variables, innermost last. A binding holds one value per
//! vector lane, or one value every lane sees.

use super::symbol_map::SymbolMap;
use crate::eval::value::Value;
use crate::ir::Symbol;

#[derive(Clone)]
enum Lanes {
    Scalar(Value),
    Vector(Vec<Value>),
}

#[derive(Default, Clone)]
pub(super) struct Env {
    params: SymbolMap<Value>,
    /// Scoped bindings, innermost last; a few dozen at most, so a reverse scan is fastest.
    scopes: Vec<(Symbol, Lanes)>,
}

impl Env {
    pub(super) fn bind_param(&mut self, name: Symbol, value: Value) {
        self.params.insert(name, value);
    }

    pub(super) fn unbind_param(&mut self, name: Symbol) {
        self.params.remove(&name);
    }

    /// Opens a scope binding `name` to the lanes of a value (one lane: a scalar).
    pub(super) fn push(&mut self, name: Symbol, mut lanes: Vec<Value>) {
        let binding = if lanes.len() == 1 {
            Lanes::Scalar(lanes.pop().expect("one lane"))
        } else {
            Lanes::Vector(lanes)
        };
        self.scopes.push((name, binding));
    }

    pub(super) fn push_scalar(&mut self, name: Symbol, value: Value) {
        self.scopes.push((name, Lanes::Scalar(value)));
    }

    /// Rebinds the innermost scope (a loop variable moving to its next iteration).
    pub(super) fn set_innermost_scalar(&mut self, value: Value) {
        let innermost = self
            .scopes
            .last_mut()
            .expect("internal error: no scope to rebind");
        innermost.1 = Lanes::Scalar(value);
    }

    pub(super) fn pop(&mut self) {
        self.scopes
            .pop()
            .expect("internal error: popped more scopes than were pushed");
    }

    /// Lane `lane` of `name`: the innermost scoped binding, else a parameter.
    pub(super) fn lookup(&self, name: Symbol, lane: usize) -> Option<Value> {
        match self.scopes.iter().rev().find(|(n, _)| *n == name) {
            Some((_, Lanes::Scalar(v))) => Some(*v),
            Some((_, Lanes::Vector(lanes))) => lanes.get(lane).copied(),
            None => self.params.get(&name).copied(),
        }
    }
}
