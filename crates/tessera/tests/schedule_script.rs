//! Schedules as data (`tessera::schedule_script`): a script applied to a pipeline lowers to
//! exactly the code the same directives written in Rust do, computes the values a plain Rust
//! loop does, survives a JSON round trip, prints as Rust, names the intermediate Funcs of its rfactors
//! for later directives, and refuses what it names wrongly.

use tessera::prelude::*;
use tessera::schedule_script::{Directive, ScheduleScript, SpecializeCondition};

/// `out(x, y) = g(x, y) + g(x, y + 1)` over `g(x, y) = f(x, y) * 2` over `f(x, y) = x + 3 y`,
/// with `f` updated once (`f(x, 0) += 100`) so that scripts can direct an update.
fn pipeline() -> (Func, Func, Func) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x + y * 3).unwrap();
    f.update((x, 0), f.at((x, 0)) + 100).unwrap();
    let g = Func::new("g");
    g.define((x, y), f.at((x, y)) * 2).unwrap();
    let out = Func::new("out");
    out.define((x, y), g.at((x, y)) + g.at((x, y + 1))).unwrap();
    (f, g, out)
}

fn expected(x: i64, y: i64) -> i32 {
    let f = |x: i64, y: i64| x + 3 * y + if y == 0 { 100 } else { 0 };
    (2 * f(x, y) + 2 * f(x, y + 1)) as i32
}

fn split(var: &str, outer: &str, inner: &str, tail: TailStrategy) -> Directive {
    Directive::Split {
        func: "out".into(),
        update: None,
        var: var.into(),
        outer: outer.into(),
        inner: inner.into(),
        factor: 8,
        tail,
    }
}

/// A script using every kind of directive, and the same schedule written in Rust.
fn script() -> ScheduleScript {
    ScheduleScript {
        directives: vec![
            split("y", "yo", "yi", TailStrategy::GuardWithIf),
            split("x", "xo", "xi", TailStrategy::Auto),
            Directive::Reorder {
                func: "out".into(),
                update: None,
                vars: vec!["xi".into(), "yi".into(), "xo".into(), "yo".into()],
            },
            Directive::Fuse {
                func: "out".into(),
                update: None,
                inner: "xo".into(),
                outer: "yo".into(),
                fused: "tile".into(),
            },
            Directive::Parallel {
                func: "out".into(),
                update: None,
                var: "tile".into(),
            },
            Directive::Vectorize {
                func: "out".into(),
                update: None,
                var: "xi".into(),
                width: None,
            },
            Directive::ComputeAt {
                func: "g".into(),
                consumer: "out".into(),
                var: "tile".into(),
            },
            Directive::Unroll {
                func: "g".into(),
                update: None,
                var: "y".into(),
                factor: Some(2),
            },
            Directive::ComputeRoot { func: "f".into() },
            Directive::Vectorize {
                func: "f".into(),
                update: Some(0),
                var: "x".into(),
                width: Some(4),
            },
            Directive::Bound {
                func: "out".into(),
                var: "x".into(),
                min: 0,
                extent: 32,
            },
            Directive::StoreNontemporal { func: "out".into() },
            Directive::Wrap {
                func: "f".into(),
                consumer: "g".into(),
                wrapper: "f_in_g".into(),
            },
            Directive::ComputeAt {
                func: "f_in_g".into(),
                consumer: "out".into(),
                var: "tile".into(),
            },
            Directive::Prefetch {
                func: "out".into(),
                producer: "g".into(),
                at: "yi".into(),
                from: "yi".into(),
                offset: 1,
                strategy: PrefetchBoundStrategy::Clamp,
            },
            Directive::Async { func: "f".into() },
        ],
    }
}

fn schedule_in_rust(f: &Func, g: &Func, out: &Func) {
    out.split_with_tail("y", "yo", "yi", 8, TailStrategy::GuardWithIf)
        .split("x", "xo", "xi", 8)
        .reorder(["xi", "yi", "xo", "yo"])
        .fuse("xo", "yo", "tile")
        .parallel("tile")
        .vectorize_loop("xi");
    g.compute_at(out, "tile").unroll("y", 2);
    f.compute_root();
    f.update_stage(0).vectorize("x", 4);
    out.bound("x", 0, 32);
    out.store_nontemporal();
    let f_in_g = f.in_(g);
    f_in_g.compute_at(out, "tile");
    out.prefetch(g, "yi", "yi", 1, PrefetchBoundStrategy::Clamp);
    f.async_();
}

#[test]
fn a_script_lowers_as_the_same_directives_in_rust_and_computes_the_same_values() {
    let (f, g, out) = pipeline();
    schedule_in_rust(&f, &g, &out);
    let by_hand = Pipeline::new(&out).lower_to_string().unwrap();
    assert!(by_hand.contains("prefetch g["), "{by_hand}");
    assert!(by_hand.contains("fork {"), "{by_hand}");

    let (_, _, out) = pipeline();
    script().apply(&out).unwrap();
    assert_eq!(Pipeline::new(&out).lower_to_string().unwrap(), by_hand);

    let values = out.realize::<i32>(&[32, 21]).unwrap();
    values.for_each_coord(|c| assert_eq!(values.get(c), expected(c[0], c[1]), "out{c:?}"));
}

#[test]
fn a_script_survives_a_json_round_trip() {
    let script = script();
    let json = script.to_json();
    assert_eq!(ScheduleScript::from_json(&json).unwrap(), script, "{json}");
    // One directive per line, the default tail strategy and pure stages left out.
    assert_eq!(json.lines().count(), script.directives.len() + 4, "{json}");
    assert!(
        json.contains(r#"{"directive":"compute_root","func":"f"}"#),
        "{json}"
    );
    assert!(json.contains(r#""tail":"GuardWithIf""#), "{json}");
    assert_eq!(json.matches("\"tail\"").count(), 1, "{json}");
}

#[test]
fn a_script_prints_as_the_rust_that_applies_it() {
    let rust = script().to_rust();
    let lines: Vec<&str> = rust.lines().collect();
    assert_eq!(lines.len(), script().directives.len());
    assert_eq!(
        lines[0],
        r#"out.split_with_tail("y", "yo", "yi", 8, TailStrategy::GuardWithIf);"#
    );
    assert_eq!(lines[2], r#"out.reorder(["xi", "yi", "xo", "yo"]);"#);
    assert_eq!(lines[6], r#"g.compute_at(&out, "tile");"#);
    assert_eq!(lines[9], r#"f.update_stage(0).vectorize("x", 4);"#);
    assert_eq!(lines[10], r#"out.bound("x", 0, 32);"#);
    assert_eq!(lines[11], "out.store_nontemporal();");
    assert_eq!(lines[12], "let f_in_g = f.in_(&g);");
    assert_eq!(lines[13], r#"f_in_g.compute_at(&out, "tile");"#);
    assert_eq!(
        lines[14],
        r#"out.prefetch(&g, "yi", "yi", 1, PrefetchBoundStrategy::Clamp);"#
    );
    assert_eq!(lines[15], "f.async_();");
}

#[test]
fn a_script_naming_what_the_pipeline_lacks_is_refused_before_anything_is_applied() {
    let (f, _, out) = pipeline();
    let mut bad = script();
    bad.directives.push(Directive::ComputeAt {
        func: "f".into(),
        consumer: "h".into(),
        var: "x".into(),
    });
    let e = bad.apply(&out).unwrap_err().to_string();
    assert!(e.contains("`h`") && e.contains("f, g, out"), "{e}");
    // Nothing was applied: g is still inlined.
    assert!(!Pipeline::new(&out)
        .lower_to_string()
        .unwrap()
        .contains("produce g"));

    let update = ScheduleScript {
        directives: vec![Directive::Parallel {
            func: "f".into(),
            update: Some(1),
            var: "x".into(),
        }],
    };
    let e = update.apply(&out).unwrap_err().to_string();
    assert!(e.contains("update 1 of f") && e.contains("1 update"), "{e}");
    assert_eq!(f.update_count(), 1);
}

#[test]
fn a_script_with_a_loop_the_func_lacks_is_refused_when_lowered_naming_the_directive() {
    let (_, _, out) = pipeline();
    let script = ScheduleScript {
        directives: vec![Directive::Parallel {
            func: "out".into(),
            update: None,
            var: "z".into(),
        }],
    };
    script.apply(&out).unwrap();
    let e = Pipeline::new(&out)
        .lower_to_string()
        .unwrap_err()
        .to_string();
    assert!(e.contains("out") && e.contains("parallel(z)"), "{e}");
}

#[test]
fn malformed_json_is_an_error_saying_what_is_wrong() {
    for (json, says) in [
        (
            r#"{"directives": [{"directive": "spilt", "func": "f"}]}"#,
            "spilt",
        ),
        (r#"{"directives": [{"directive": "compute_root"}]}"#, "func"),
        (
            r#"{"directives": [{"directive": "compute_root", "func": "f", "var": "x"}]}"#,
            "var",
        ),
        (
            r#"{"directives": [{"directive": "split", "func": "f", "var": "x", "outer": "xo", "inner": "xi", "factor": 8, "tail": "Sideways"}]}"#,
            "Sideways",
        ),
        (r#"{"steps": []}"#, "steps"),
        ("not json", "expected"),
    ] {
        let e = ScheduleScript::from_json(json).unwrap_err().to_string();
        assert!(e.contains(says), "{json}: {e}");
    }
}

/// `sums(x) = Σ_{r < 40} x * r + r`, and a script factoring the sum into 5 partial sums of
/// 8 terms, the partial sums computed at root in parallel, scheduled by the name the script
/// gives them.
fn factored_sum() -> (Func, ScheduleScript) {
    let x = Var::new("x");
    let r = RDom::named("r", [(0, 40)]);
    let sums = Func::new("sums");
    sums.define(x, 0).unwrap();
    sums.update(x, sums.at(x) + (x * r.x() + r.x())).unwrap();
    let on_sums = |var: &str| Directive::Split {
        func: "sums".into(),
        update: Some(0),
        var: var.into(),
        outer: "ro".into(),
        inner: "ri".into(),
        factor: 8,
        tail: TailStrategy::GuardWithIf,
    };
    let script = ScheduleScript {
        directives: vec![
            on_sums("r.x"),
            Directive::Rfactor {
                func: "sums".into(),
                update: 0,
                preserved: vec![("ro".into(), "k".into())],
                intermediate: "partial".into(),
            },
            Directive::ComputeRoot {
                func: "partial".into(),
            },
            Directive::Parallel {
                func: "partial".into(),
                update: Some(0),
                var: "k".into(),
            },
        ],
    };
    (sums, script)
}

#[test]
fn an_rfactor_directive_names_its_intermediate_for_later_directives() {
    let (sums, script) = factored_sum();
    let json = script.to_json();
    assert_eq!(ScheduleScript::from_json(&json).unwrap(), script);
    script.apply(&sums).unwrap();
    let lowered = Pipeline::new(&sums).lower_to_string().unwrap();
    assert!(lowered.contains("parallel for (partial.s1.k"), "{lowered}");
    let values = sums.realize::<i32>(&[10]).unwrap();
    values.for_each_coord(|c| {
        let want: i64 = (0..40).map(|r| c[0] * r + r).sum();
        assert_eq!(values.get(c) as i64, want, "sums{c:?}");
    });
    let rust = script.to_rust();
    assert!(
        rust.contains(r#"let partial = sums.update_stage(0).rfactor_named("partial", &[("ro".into(), Var::new("k"))])?;"#),
        "{rust}"
    );
}

#[test]
fn an_intermediate_used_before_its_rfactor_or_named_as_an_existing_func_is_refused() {
    let (sums, script) = factored_sum();
    let mut early = script.clone();
    early.directives.swap(1, 2);
    let e = early.apply(&sums).unwrap_err().to_string();
    assert!(
        e.contains("`partial`") && e.contains("its Funcs are: sums"),
        "{e}"
    );
    let mut clash = script;
    if let Directive::Rfactor { intermediate, .. } = &mut clash.directives[1] {
        *intermediate = "sums".into();
    }
    let e = clash.apply(&sums).unwrap_err().to_string();
    assert!(e.contains("`sums`") && e.contains("already exists"), "{e}");
    // Nothing was applied: the update is not factored.
    assert!(!Pipeline::new(&sums)
        .lower_to_string()
        .unwrap()
        .contains("partial"));
}

#[test]
fn a_wrap_of_a_func_its_consumer_does_not_call_is_refused_naming_both() {
    let (_, _, out) = pipeline();
    // `out` reads g, not f: `f.in_(&out)` has nothing to wrap.
    let script = ScheduleScript {
        directives: vec![Directive::Wrap {
            func: "f".into(),
            consumer: "out".into(),
            wrapper: "f_in_out".into(),
        }],
    };
    let e = script.apply(&out).unwrap_err().to_string();
    assert!(
        e.contains("`f_in_out`") && e.contains("out does not call f"),
        "{e}"
    );
}

#[test]
fn a_script_names_funcs_sharing_a_name_as_lowering_renames_them() {
    // Two Funcs made with one name (as a helper making a boundary condition twice does): the
    // later is `twin2` to lowering and the automatic scheduler, and so to a script.
    let x = Var::new("x");
    let (first, second) = (Func::new("twin"), Func::new("twin"));
    first.define(x, x * 2).unwrap();
    second.define(x, x + 7).unwrap();
    let out = Func::new("out");
    out.define(x, first.at(x) + second.at(x + 1) * 10).unwrap();
    let script = ScheduleScript {
        directives: vec![
            Directive::ComputeRoot {
                func: "twin2".into(),
            },
            Directive::Wrap {
                func: "twin".into(),
                consumer: "out".into(),
                wrapper: "twin_in_out".into(),
            },
            Directive::ComputeRoot {
                func: "twin_in_out".into(),
            },
        ],
    };
    script.apply(&out).unwrap();
    let lowered = Pipeline::new(&out).lower_to_string().unwrap();
    for name in ["produce twin2", "produce twin_in_out"] {
        assert!(lowered.contains(name), "{name} in {lowered}");
    }
    let values = out.realize::<i32>(&[19]).unwrap();
    values.for_each_coord(|c| {
        let x = c[0] as i32;
        assert_eq!(values.get(c), 2 * x + (x + 1 + 7) * 10, "out{c:?}");
    });
}

/// `out` vectorized by 8 where its x min is a multiple of 4, by 4 elsewhere.
fn specialized_script() -> ScheduleScript {
    let vectorize = |factor: i32| Directive::Vectorize {
        func: "out".into(),
        update: None,
        var: "x".into(),
        width: Some(factor),
    };
    ScheduleScript {
        directives: vec![
            Directive::Specialize {
                func: "out".into(),
                when: vec![SpecializeCondition::OutputMinMultiple { dim: 0, modulus: 4 }],
                directives: vec![vectorize(8)],
            },
            vectorize(4),
        ],
    }
}

#[test]
fn a_specialization_lowers_as_in_rust_survives_json_and_computes_right_at_any_min() {
    let (_, _, out) = pipeline();
    let special = out.specialize((out.output_min(0) % 4).eq_(0));
    special.vectorize("x", 8);
    out.vectorize("x", 4);
    let by_hand = Pipeline::new(&out).lower_to_string().unwrap();

    let script = specialized_script();
    let json = script.to_json();
    assert_eq!(ScheduleScript::from_json(&json).unwrap(), script, "{json}");
    assert!(
        json.contains(r#""condition":"output_min_multiple""#),
        "{json}"
    );
    let (_, _, out) = pipeline();
    script.apply(&out).unwrap();
    assert_eq!(Pipeline::new(&out).lower_to_string().unwrap(), by_hand);
    assert_eq!(
        script.to_rust(),
        concat!(
            "{\n",
            "    let special = out.specialize((out.output_min(0) % 4).eq_(0));\n",
            "    special.vectorize(\"x\", 8);\n",
            "}\n",
            "out.vectorize(\"x\", 4);\n",
        )
    );
    let compiled = Pipeline::new(&out).compile_jit(&Target::host()).unwrap();
    for min in [[0, 0], [3, 1], [-4, 2]] {
        let mut outs = compiled.realize(&Inputs::new(), &min, &[21, 5]).unwrap();
        let values = Buffer::<i32>::try_from(outs.remove(0)).unwrap();
        values.for_each_coord(|c| assert_eq!(values.get(c), expected(c[0], c[1]), "out{c:?}"));
    }
}

#[test]
fn a_specialization_directing_more_than_its_funcs_loops_is_refused_naming_it() {
    let (_, _, out) = pipeline();
    let mut script = specialized_script();
    let Directive::Specialize { directives, .. } = &mut script.directives[0] else {
        unreachable!("the script starts with its specialization")
    };
    directives.push(Directive::ComputeRoot { func: "out".into() });
    let e = script.apply(&out).unwrap_err().to_string();
    assert!(
        e.contains("specializes out") && e.contains("ComputeRoot"),
        "{e}"
    );
}
