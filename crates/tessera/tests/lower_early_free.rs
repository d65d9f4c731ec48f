//! `early_free`: a root Func's allocation is released right after its last consumer, not at
//! the end of the pipeline, on the straight-line path (after a loop or branch that reads it,
//! never inside one); the interpreter, which empties a freed allocation, and the checked
//! native code compute what the evaluator computes.

mod lower_common;

use lower_common::{check, TestInputs};
use tessera::lower::LowerOptions;
use tessera::pipeline::Pipeline;
use tessera::prelude::*;

/// `f → g → h → out`, each a 3-point stencil of the one before; `f`, `g`, `h` at root.
fn chain() -> Func {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x * 3 + y).unwrap();
    let mut previous = f.clone();
    let mut stages = vec![f];
    for name in ["g", "h", "out"] {
        let next = Func::new(name);
        next.define(
            (x, y),
            previous.at((x - 1, y)) + previous.at((x, y)) * 2 + previous.at((x + 1, y)),
        )
        .unwrap();
        previous = next.clone();
        stages.push(next);
    }
    for s in &stages[..3] {
        s.compute_root();
    }
    previous
}

fn lowered(out: &Func) -> String {
    Pipeline::new(out)
        .lower(&LowerOptions::default())
        .expect("lowers")
        .stmt
        .to_string()
}

fn position(text: &str, needle: &str) -> usize {
    text.find(needle)
        .unwrap_or_else(|| panic!("no `{needle}` in:\n{text}"))
}

#[test]
fn each_root_func_is_freed_after_its_last_consumer() {
    let out = chain();
    let text = lowered(&out);
    // f is read only by g's production, g only by h's: each is freed before the next
    // production starts, so at most two of them are live at once.
    assert!(
        position(&text, "free f") < position(&text, "produce h"),
        "{text}"
    );
    assert!(
        position(&text, "free g") < position(&text, "produce out"),
        "{text}"
    );
    // h is read by the output's loop, the last statement of its scope: freed by its end.
    assert!(!text.contains("free h"), "{text}");
    let run = check(&out, &TestInputs::new(), &[0, 0], &[17, 5]);
    assert_eq!(run.allocations("f"), 1);
}

#[test]
fn a_func_last_read_inside_a_loop_lives_to_the_end_of_its_scope() {
    // lf at root, read by lh (at root) and by lg, computed per row of the output: lf's last
    // access is inside the output's row loop, so it lives to the end of its scope.
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("lf");
    f.define((x, y), x - y * 7).unwrap();
    let g = Func::new("lg");
    g.define((x, y), f.at((x, y)) + f.at((x + 2, y))).unwrap();
    let h = Func::new("lh");
    h.define((x, y), f.at((x + 1, y)) * 3).unwrap();
    let last = Func::new("lout");
    last.define((x, y), g.at((x, y)) + g.at((x, y + 1)) + h.at((x, y)))
        .unwrap();
    f.compute_root();
    h.compute_root();
    g.compute_at(&last, "y");
    let text = lowered(&last);
    assert!(!text.contains("free lf"), "{text}");
    check(&last, &TestInputs::new(), &[-3, 2], &[9, 6]);
}
