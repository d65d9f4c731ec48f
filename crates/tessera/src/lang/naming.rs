//! Func names unique within a pipeline, by construction. Helpers that make a Func of a fixed
//! name on every call (`Func::new("add")`, inline reductions, boundary conditions) give one
//! pipeline several Funcs of one name; lowering and the evaluator identify Funcs by name, so
//! they are renamed first. Deterministically: Funcs keep the names they were given, and of
//! those sharing one the earliest made (in creation order) keeps it, the others taking the
//! first free `name2`, `name3`, ...; so printed loop nests do not depend on what else the
//! process built. Calls, schedules (`compute_at`, `store_at`, `hoist_storage`,
//! `compute_with`) and wrappers follow the renamed Funcs by identity.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::function::{redirect_func_calls, Definition, FuncId, Function};
use super::schedule::{FuncSchedule, LoopLevel};
use super::wrapper::redirect_to_global_wrappers;
use crate::ir::{Expr, Symbol};

/// Renames the Funcs reachable from `output` that share a name with an earlier-made one.
pub fn make_func_names_unique(output: &Function) {
    make_names_unique_among(std::slice::from_ref(output));
}

/// `make_func_names_unique` for the Funcs reachable from any of `outputs`.
/// Global wrappers (`in_all`) are put in first: they add Funcs to the pipeline.
pub fn make_names_unique_among(outputs: &[Function]) {
    redirect_to_global_wrappers(outputs);
    let funcs = reachable_from(outputs);
    let mut by_name: BTreeMap<Symbol, Vec<&Function>> = BTreeMap::new();
    for f in funcs.values() {
        by_name.entry(f.name()).or_default().push(f);
    }
    if by_name.values().all(|group| group.len() == 1) {
        return;
    }
    let mut taken: HashSet<Symbol> = by_name.keys().copied().collect();
    let mut renamed: HashMap<FuncId, Symbol> = HashMap::new();
    // `funcs` is ordered by id, so each group is in creation order.
    for group in by_name.values().filter(|g| g.len() > 1) {
        for f in &group[1..] {
            let fresh = Symbol::first_untaken(f.name().as_str(), |n| taken.contains(&n));
            taken.insert(fresh);
            renamed.insert(f.id(), fresh);
            f.write().name = fresh;
        }
    }
    // Relinking reads the called Funcs, the Func itself among them where its updates read
    // it: the new definitions are made with no lock held, then stored.
    let relinked: Vec<(&Function, Option<Definition>, Vec<Definition>)> = funcs
        .values()
        .map(|f| {
            let (mut pure, mut updates) = {
                let contents = f.read();
                (contents.pure.clone(), contents.updates.clone())
            };
            for def in pure.iter_mut().chain(updates.iter_mut()) {
                relink_definition(def, &renamed);
            }
            (f, pure, updates)
        })
        .collect();
    for (f, pure, updates) in relinked {
        let mut contents = f.write();
        let contents = &mut *contents;
        contents.pure = pure;
        contents.updates = updates;
        rename_schedule(&mut contents.schedule, &renamed);
    }
}

/// Every Func reachable from `output` through calls and wrappers, by identity.
pub fn reachable(output: &Function) -> BTreeMap<FuncId, Function> {
    reachable_from(std::slice::from_ref(output))
}

/// The Funcs `reachable` from any of `outputs`.
pub fn reachable_from(outputs: &[Function]) -> BTreeMap<FuncId, Function> {
    let mut found = BTreeMap::new();
    let mut work = outputs.to_vec();
    while let Some(f) = work.pop() {
        if found.contains_key(&f.id()) {
            continue;
        }
        found.insert(f.id(), f.clone());
        work.extend(f.callees());
        work.extend(f.read().wrappers.iter().map(|w| w.by.clone()));
    }
    found
}

/// `d` with its calls to renamed Funcs under their new names.
fn relink_definition(d: &mut Definition, renamed: &HashMap<FuncId, Symbol>) {
    d.map_exprs(|e| relink(e, renamed));
}

/// `e` with its calls to renamed Funcs under their new names.
fn relink(e: &Expr, renamed: &HashMap<FuncId, Symbol>) -> Expr {
    redirect_func_calls(e, &|link| {
        renamed
            .contains_key(&link.function().id())
            .then(|| link.renamed())
    })
}

/// The schedule with its references to renamed Funcs under their new names.
fn rename_schedule(s: &mut FuncSchedule, renamed: &HashMap<FuncId, Symbol>) {
    let levels = std::iter::once(&mut s.compute_level)
        .chain(s.store_level.as_mut())
        .chain(s.hoist_level.as_mut());
    for level in levels {
        if let LoopLevel::At { func, id, .. } = level {
            if let Some(&new_name) = renamed.get(id) {
                *func = new_name;
            }
        }
    }
    for fused in &mut s.compute_with {
        if let Some(&new_name) = renamed.get(&fused.with_id) {
            fused.with = new_name;
        }
    }
    for p in &mut s.prefetches {
        if let Some(&new_name) = p.producer_id.and_then(|id| renamed.get(&id)) {
            p.producer = new_name;
        }
    }
}
