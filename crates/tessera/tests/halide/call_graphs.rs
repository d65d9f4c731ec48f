//! Halide's `check_call_graphs.h` for the ports: which Funcs and input images each Func's
//! producer calls in the lowered code (before storage flattening), and the `graph!` macro
//! that writes the expected graph with the Funcs' and images' own names.

use std::collections::{BTreeMap, BTreeSet};

use tessera::ir::visit::visit_exprs;
use tessera::ir::{CallKind, ExprKind, Stmt, StmtKind};
use tessera::lower::{LowerOptions, Lowered};
use tessera::pipeline::Pipeline;

use crate::lower_common::UNFLATTENED_PASS;

/// For each Func produced, the names of what its producer calls.
pub type CallGraph = BTreeMap<String, BTreeSet<String>>;

/// `graph!{g => [wrapper], wrapper => [input], input_f => []}`: a `CallGraph` of Funcs and
/// ImageParams (anything with a `name()`).
macro_rules! graph {
    ($($f:expr => [$($callee:expr),* $(,)?]),* $(,)?) => {{
        let graph: $crate::call_graphs::CallGraph = [$((
            $f.name().to_string(),
            [$($callee.name().to_string()),*].into_iter().collect(),
        )),*]
        .into_iter()
        .collect();
        graph
    }};
}
pub(crate) use graph;

/// For every Func the lowered code produces, what is called inside its producer (outside
/// the producers nested in it): in stored values, coordinates and conditions.
pub fn call_graph(lowered: &Lowered) -> CallGraph {
    let ir = lowered
        .ir_after(UNFLATTENED_PASS)
        .expect("the IR before flattening is recorded");
    let mut graph = CallGraph::new();
    collect_calls(ir, None, &mut graph);
    graph
}

fn collect_calls(s: &Stmt, producer: Option<&str>, graph: &mut CallGraph) {
    if let StmtKind::ProducerConsumer {
        name,
        is_producer: true,
        body,
    } = s.kind()
    {
        let name = name.to_string();
        graph.entry(name.clone()).or_default();
        collect_calls(body, Some(&name), graph);
        return;
    }
    s.for_each_child(
        |e| {
            if let Some(p) = producer {
                visit_exprs(e, &mut |e| {
                    if let ExprKind::Call {
                        name,
                        kind: CallKind::Func(_) | CallKind::Image(_),
                        ..
                    } = e.kind()
                    {
                        graph.get_mut(p).unwrap().insert(name.to_string());
                    }
                    true
                });
            }
        },
        |_| {},
    );
    s.for_each_child(|_| {}, |c| collect_calls(c, producer, graph));
}

/// `call_graph` of `pipeline`, lowered.
pub fn pipeline_call_graph(pipeline: &Pipeline) -> CallGraph {
    let options = LowerOptions {
        record_ir: true,
        ..LowerOptions::default()
    };
    call_graph(&pipeline.lower(&options).expect("the pipeline lowers"))
}
