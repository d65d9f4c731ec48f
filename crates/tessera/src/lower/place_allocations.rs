//! Allocation placement, the last pass: every allocation's memory is decided here, so the
//! printed Stmt says where each one lives and code generation only follows it. `Auto`
//! becomes the stack for a small constant size and the heap otherwise; a Func stored in
//! `Stack` or `Register` memory (`Func::store_in`) whose size is not a constant small
//! enough for a stack frame is an error naming it.

use crate::error::{Error, Result};
use crate::ir::stmt::constant_elements;
use crate::ir::{Stmt, StmtKind};

pub fn place_allocations(s: &Stmt) -> Result<Stmt> {
    let s = s.try_map_stmts(place_allocations)?;
    let StmtKind::Allocate {
        buffer,
        ty,
        extents,
        memory,
        body,
    } = s.kind()
    else {
        return Ok(s);
    };
    let bytes = constant_elements(extents).and_then(|n| n.checked_mul(ty.bytes() as u64));
    let placed = memory
        .place(bytes)
        .map_err(|why| Error::schedule(format!("{buffer} {why}")))?;
    if placed == *memory {
        return Ok(s);
    }
    Ok(Stmt::new(StmtKind::Allocate {
        buffer: *buffer,
        ty: *ty,
        extents: extents.clone(),
        memory: placed,
        body: body.clone(),
    }))
}
