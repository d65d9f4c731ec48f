//! The interpreter's storage: buffers bound by the caller (inputs and outputs), the
//! multi-dimensional realizations of Funcs (`Realize`, accessed by `Provide` and Func calls)
//! and flat allocations (`Allocate`, accessed by `Store` and `Load`). Every access is checked
//! against the storage it addresses, and errors name the Func or buffer, the coordinate or
//! index, and what the storage covers. New storage is filled with a deterministic garbage
//! pattern, not zeros, so reads of elements nothing wrote show up in tests.

use super::random::mix64;
use super::symbol_map::SymbolMap;
use crate::error::{Error, Result};
use crate::eval::value::Value;
use crate::ir::{Symbol, Type};
use crate::lang::buffer::{AnyBuffer, Dim};

/// The most elements one `Realize` or `Allocate` may ask for. A statement asking for more
/// almost certainly carries a bounds bug, and failing beats exhausting the machine's memory.
const MAX_ELEMENTS: u64 = 1 << 28;

/// Salt of the garbage pattern, so that garbage is unlikely to equal small computed values.
const GARBAGE_SALT: u64 = 0x7E55_E4A0_DEAD_BEEF;

#[derive(Default)]
pub(super) struct Memory {
    bound: SymbolMap<AnyBuffer>,
    /// Live realizations per Func, innermost last: one buffer over the realized box per
    /// Tuple element.
    realizations: SymbolMap<Vec<Vec<AnyBuffer>>>,
    /// Live flat allocations per name, innermost last: one-dimensional, min 0, dense.
    allocations: SymbolMap<Vec<AnyBuffer>>,
}

/// The storage an access resolves to.
#[derive(Clone, Copy)]
enum Place {
    Realization { func: Symbol, element: usize },
    Allocation(Symbol),
    Bound(Symbol),
}

impl Memory {
    pub(super) fn bind(&mut self, name: Symbol, buffer: AnyBuffer) {
        self.bound.insert(name, buffer);
    }
    pub(super) fn bound(&self, name: Symbol) -> Option<&AnyBuffer> {
        self.bound.get(&name)
    }
    pub(super) fn take_bound(&mut self, name: Symbol) -> Option<AnyBuffer> {
        self.bound.remove(&name)
    }

    /// Opens storage for `func` over the box `[mins, mins + extents)`, one buffer per Tuple
    /// element type; returns the number of points in the box.
    pub(super) fn realize(
        &mut self,
        func: Symbol,
        types: &[Type],
        mins: &[i64],
        extents: &[i64],
    ) -> Result<u64> {
        let points = element_count(&format!("the realization of {func}"), extents)?;
        let buffers = types
            .iter()
            .map(|&ty| garbage_filled(ty, mins, extents, points))
            .collect::<Result<Vec<_>>>()?;
        self.realizations.entry(func).or_default().push(buffers);
        Ok(points)
    }
    pub(super) fn end_realize(&mut self, func: Symbol) {
        pop_innermost(&mut self.realizations, func);
    }

    /// Opens a flat allocation of `product(extents)` elements of `ty`; returns that count.
    pub(super) fn allocate(&mut self, buffer: Symbol, ty: Type, extents: &[i64]) -> Result<u64> {
        let elements = element_count(&format!("the allocation of {buffer}"), extents)?;
        let storage = garbage_filled(ty, &[0], &[elements as i64], elements)?;
        self.allocations.entry(buffer).or_default().push(storage);
        Ok(elements)
    }
    pub(super) fn free(&mut self, buffer: Symbol) {
        pop_innermost(&mut self.allocations, buffer);
    }
    /// Releases the innermost allocation of `buffer` before its `Allocate` ends (a `Free`):
    /// it becomes empty, so an access after the `Free` is an error, not a read of stale data.
    pub(super) fn free_early(&mut self, buffer: Symbol) -> Result<()> {
        let storage = self
            .allocations
            .get_mut(&buffer)
            .and_then(|stack| stack.last_mut())
            .ok_or_else(|| {
                Error::Runtime(format!("Free of {buffer}, which is not allocated here"))
            })?;
        *storage = AnyBuffer::with_mins(storage.ty(), &[0], &[0])?;
        Ok(())
    }

    /// Value `element` of `func` at `coords` (a Func call before storage flattening).
    pub(super) fn read_func(&self, func: Symbol, element: usize, coords: &[i64]) -> Result<Value> {
        let (place, b) = self.func_storage(func, element, "call to", coords)?;
        if !b.contains(coords) {
            return Err(Error::Runtime(format!(
                "call to Func {func} at {} is outside {}",
                format_coords(coords),
                self.describe(place)
            )));
        }
        Ok(b.get_value(coords))
    }

    /// Stores value `element` of `func` at `coords` (a `Provide`).
    pub(super) fn write_func(
        &mut self,
        func: Symbol,
        element: usize,
        coords: &[i64],
        value: Value,
        ty: Type,
    ) -> Result<()> {
        let (place, b) = self.func_storage(func, element, "Provide to", coords)?;
        if b.ty() != ty {
            return Err(Error::Runtime(format!(
                "Provide to Func {func} stores a {ty} as value {element}, but {} holds {}",
                self.describe(place),
                b.ty()
            )));
        }
        if !b.contains(coords) {
            return Err(Error::Runtime(format!(
                "Provide to Func {func} at {} is outside {}",
                format_coords(coords),
                self.describe(place)
            )));
        }
        self.get_mut(place).set_value(coords, value);
        Ok(())
    }

    /// The element of input image `image` at `coords`.
    pub(super) fn read_image(&self, image: Symbol, coords: &[i64]) -> Result<Value> {
        let b = self.bound.get(&image).ok_or_else(|| {
            Error::Runtime(format!("no buffer is bound for the input image {image}"))
        })?;
        if !b.contains(coords) {
            return Err(Error::Runtime(format!(
                "call to image {image} at {} is outside {}",
                format_coords(coords),
                self.describe(Place::Bound(image))
            )));
        }
        Ok(b.get_value(coords))
    }

    /// Element `index` of a flat allocation or bound buffer (bound buffers count from the
    /// element at their mins and follow their strides).
    pub(super) fn load(&self, buffer: Symbol, index: i64, ty: Type) -> Result<Value> {
        let (place, b) = self.flat_storage(buffer, "Load from", ty)?;
        b.get_flat(index).ok_or_else(|| {
            Error::Runtime(format!(
                "Load from {buffer}[{index}] is out of range of {}",
                self.describe(place)
            ))
        })
    }

    /// Stores `value` as element `index` of a flat allocation or bound buffer.
    pub(super) fn store(
        &mut self,
        buffer: Symbol,
        index: i64,
        value: Value,
        ty: Type,
    ) -> Result<()> {
        let (place, _) = self.flat_storage(buffer, "Store to", ty)?;
        if self.get_mut(place).set_flat(index, value) {
            Ok(())
        } else {
            Err(Error::Runtime(format!(
                "Store to {buffer}[{index}] is out of range of {}",
                self.describe(place)
            )))
        }
    }

    /// Where value `element` of `func` lives: its innermost realization, else the bound output
    /// buffer named `func` (element 0) or `func.element` (Halide's names for Tuple outputs).
    fn func_storage(
        &self,
        func: Symbol,
        element: usize,
        access: &str,
        coords: &[i64],
    ) -> Result<(Place, &AnyBuffer)> {
        if let Some(buffers) = self.realizations.get(&func).and_then(|s| s.last()) {
            return match buffers.get(element) {
                Some(b) => Ok((Place::Realization { func, element }, b)),
                None => Err(Error::Runtime(format!(
                    "{access} Func {func} at {} uses value {element}, but {func} is realized with {} values",
                    format_coords(coords),
                    buffers.len()
                ))),
            };
        }
        if element == 0 {
            if let Some(b) = self.bound.get(&func) {
                return Ok((Place::Bound(func), b));
            }
        }
        let tuple_output = func.dot(&element.to_string());
        match self.bound.get(&tuple_output) {
            Some(b) => Ok((Place::Bound(tuple_output), b)),
            None => Err(Error::Runtime(format!(
                "{access} Func {func} at {}: {func} is neither realized here nor bound as an output buffer",
                format_coords(coords)
            ))),
        }
    }

    /// The innermost allocation named `buffer`, else the bound buffer of that name, checked
    /// to hold elements of type `ty`.
    fn flat_storage(&self, buffer: Symbol, access: &str, ty: Type) -> Result<(Place, &AnyBuffer)> {
        let (place, b) = if let Some(b) = self.allocations.get(&buffer).and_then(|s| s.last()) {
            (Place::Allocation(buffer), b)
        } else if let Some(b) = self.bound.get(&buffer) {
            (Place::Bound(buffer), b)
        } else {
            return Err(Error::Runtime(format!(
                "{access} {buffer}: no allocation or bound buffer has that name"
            )));
        };
        if b.ty() != ty {
            return Err(Error::Runtime(format!(
                "{access} {buffer} accesses it as {ty}, but {} holds {}",
                self.describe(place),
                b.ty()
            )));
        }
        Ok((place, b))
    }

    fn get(&self, place: Place) -> &AnyBuffer {
        let found = match place {
            Place::Realization { func, element } => self
                .realizations
                .get(&func)
                .and_then(|s| s.last())
                .map(|r| &r[element]),
            Place::Allocation(name) => self.allocations.get(&name).and_then(|s| s.last()),
            Place::Bound(name) => self.bound.get(&name),
        };
        found.expect("internal error: a resolved storage place vanished")
    }

    fn get_mut(&mut self, place: Place) -> &mut AnyBuffer {
        let found = match place {
            Place::Realization { func, element } => self
                .realizations
                .get_mut(&func)
                .and_then(|s| s.last_mut())
                .map(|r| &mut r[element]),
            Place::Allocation(name) => self.allocations.get_mut(&name).and_then(|s| s.last_mut()),
            Place::Bound(name) => self.bound.get_mut(&name),
        };
        found.expect("internal error: a resolved storage place vanished")
    }

    /// What the storage at `place` covers, for error messages.
    fn describe(&self, place: Place) -> String {
        let dims = self.get(place).dims();
        match place {
            Place::Realization { func, .. } => {
                format!("the realization of {func} over {}", format_box(dims))
            }
            Place::Allocation(name) => format!(
                "the allocation {name} of {} elements",
                dims.first().map_or(1, |d| d.extent)
            ),
            Place::Bound(name) => {
                let strides: Vec<String> = dims.iter().map(|d| d.stride.to_string()).collect();
                format!(
                    "the bound buffer {name} over {} (strides {})",
                    format_box(dims),
                    strides.join(", ")
                )
            }
        }
    }
}

fn pop_innermost(stacks: &mut SymbolMap<Vec<impl Sized>>, name: Symbol) {
    stacks
        .get_mut(&name)
        .and_then(|s| s.pop())
        .expect("internal error: closed storage that was never opened");
}

/// The number of elements of a box with these extents, checked for sanity.
fn element_count(what: &str, extents: &[i64]) -> Result<u64> {
    let mut count: u64 = 1;
    for (d, &e) in extents.iter().enumerate() {
        if e < 0 {
            return Err(Error::Runtime(format!(
                "{what} has extent {e} in dimension {d}; extents must be >= 0"
            )));
        }
        count = count.saturating_mul(e as u64);
    }
    if count > MAX_ELEMENTS {
        return Err(Error::Runtime(format!(
            "{what} asks for {count} elements (extents {extents:?}), more than the interpreter's limit of {MAX_ELEMENTS}"
        )));
    }
    Ok(count)
}

/// A buffer of `ty` over `[mins, mins + extents)` holding `elements` garbage values.
fn garbage_filled(ty: Type, mins: &[i64], extents: &[i64], elements: u64) -> Result<AnyBuffer> {
    let mut b = AnyBuffer::with_mins(ty, mins, extents)?;
    for i in 0..elements {
        let value = Value::from_bits(mix64(i ^ GARBAGE_SALT), ty);
        assert!(
            b.set_flat(i as i64, value),
            "internal error: a fresh dense buffer lacks element {i}"
        );
    }
    Ok(b)
}

/// `[0, 10) x [-2, 4)`.
fn format_box(dims: &[Dim]) -> String {
    let ranges: Vec<String> = dims
        .iter()
        .map(|d| format!("[{}, {})", d.min, d.min + d.extent))
        .collect();
    ranges.join(" x ")
}

/// `(3, -1)`.
fn format_coords(coords: &[i64]) -> String {
    let parts: Vec<String> = coords.iter().map(|c| c.to_string()).collect();
    format!("({})", parts.join(", "))
}
