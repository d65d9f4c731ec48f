//! The buffer ABI shared with generated code (`BufferAbi`, `DimAbi`, both `repr(C)`), and
//! `BoundBuffer`, which describes an `AnyBuffer` in that form for one call.
//!
//! `host` points at the element at the buffer's min coordinates (flat index 0 of generated
//! code), `elem_type_code` is `type_code(ty)`, `elem_bits` the IR type's bit width (1 for
//! bool, which is stored as one byte holding 0 or 1).

use crate::error::{Error, Result};
use crate::ir::{Symbol, Type, TypeCode};
use crate::lang::buffer::{any_buffer_dispatch, AnyBuffer, Buffer, Dim};
use crate::lang::scalar::Scalar;

/// One dimension: coordinates `[min, min + extent)`, elements `stride` apart.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DimAbi {
    pub min: i32,
    pub extent: i32,
    pub stride: i32,
}

#[repr(C)]
#[derive(Debug)]
pub struct BufferAbi {
    pub host: *mut u8,
    pub elem_type_code: u8,
    pub elem_bits: u8,
    pub dimensions: i32,
    pub dims: *const DimAbi,
}

/// The ABI code of an element type: 0 int, 1 uint, 2 float, 3 bool.
pub fn type_code(ty: Type) -> u8 {
    match ty.code {
        TypeCode::Int => 0,
        TypeCode::UInt => 1,
        TypeCode::Float => 2,
        TypeCode::Bool => 3,
    }
}

/// A `BufferAbi` together with the dimension array it points to.
pub struct BoundBuffer {
    abi: BufferAbi,
    // Read through `abi.dims`; a Vec's heap storage does not move with the struct.
    _dims: Vec<DimAbi>,
}

impl BoundBuffer {
    /// Describes an input buffer (generated code only reads it).
    pub fn input(name: Symbol, buffer: &AnyBuffer) -> Result<BoundBuffer> {
        BoundBuffer::new(name, buffer, host_of(buffer))
    }

    /// Describes an output buffer (generated code writes it).
    pub fn output(name: Symbol, buffer: &mut AnyBuffer) -> Result<BoundBuffer> {
        let host = host_of_mut(buffer);
        BoundBuffer::new(name, buffer, host)
    }

    fn new(name: Symbol, buffer: &AnyBuffer, host: *mut u8) -> Result<BoundBuffer> {
        let dims = abi_dims(name, buffer.dims())?;
        check_32_bit_span(name, buffer.dims())?;
        let ty = buffer.ty();
        Ok(BoundBuffer {
            abi: BufferAbi {
                host,
                elem_type_code: type_code(ty),
                elem_bits: ty.bits,
                dimensions: dims.len() as i32,
                dims: dims.as_ptr(),
            },
            _dims: dims,
        })
    }

    pub fn abi(&self) -> &BufferAbi {
        &self.abi
    }
}

/// Generated code indexes buffers with 32-bit integers: every coordinate of each dimension
/// (`min + extent - 1`) and every element's offset from the first (the sum of
/// `(extent - 1) * |stride|`) must fit in them.
fn check_32_bit_span(name: Symbol, dims: &[Dim]) -> Result<()> {
    if dims.iter().any(|d| d.extent <= 0) {
        return Ok(());
    }
    let mut span: i128 = 0;
    for (d, dim) in dims.iter().enumerate() {
        let last = dim.min as i128 + dim.extent as i128 - 1;
        if last > i32::MAX as i128 {
            return Err(Error::Buffer(format!(
                "buffer {name} reaches coordinate {last} in dimension {d}, which does not fit in 32 bits"
            )));
        }
        span += (dim.extent as i128 - 1) * (dim.stride as i128).abs();
    }
    if span > i32::MAX as i128 {
        return Err(Error::Buffer(format!(
            "buffer {name} spans {span} elements from its first to its last, more than 32-bit indices reach (2^31 - 1)"
        )));
    }
    Ok(())
}

/// `dims` as generated code reads them, or an error naming the buffer when a min, extent or
/// stride does not fit in the 32 bits the ABI gives it.
pub fn abi_dims(name: Symbol, dims: &[Dim]) -> Result<Vec<DimAbi>> {
    let narrow = |v: i64, what: &str, d: usize| {
        i32::try_from(v).map_err(|_| {
            Error::Buffer(format!(
                "buffer {name} has {what} {v} in dimension {d}, which does not fit in 32 bits"
            ))
        })
    };
    dims.iter()
        .enumerate()
        .map(|(d, dim)| {
            Ok(DimAbi {
                min: narrow(dim.min, "min", d)?,
                extent: narrow(dim.extent, "extent", d)?,
                stride: narrow(dim.stride, "stride", d)?,
            })
        })
        .collect()
}

fn element_ptr<T: Scalar>(b: &Buffer<T>) -> *mut u8 {
    b.data().as_ptr().wrapping_add(b.base_offset()) as *mut u8
}

fn element_ptr_mut<T: Scalar>(b: &mut Buffer<T>) -> *mut u8 {
    let base = b.base_offset();
    b.data_mut().as_mut_ptr().wrapping_add(base) as *mut u8
}

fn host_of(buffer: &AnyBuffer) -> *mut u8 {
    any_buffer_dispatch!(buffer, b => element_ptr(b))
}

fn host_of_mut(buffer: &mut AnyBuffer) -> *mut u8 {
    any_buffer_dispatch!(buffer, b => element_ptr_mut(b))
}
