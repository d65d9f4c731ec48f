//! Halide's `test/correctness/memoize.cpp`: `Func::memoize` caches a Func's production
//! across runs of one compiled pipeline, keyed by its region and the Params it depends on.
//! Halide counts the calls of extern stages; here the memoized Func (or its producer)
//! prints each point it computes to a print handler, so a production's count is its
//! region's points, and a cached one counts nothing. Values are checked against plain Rust.
//! Halide's staged externs are Funcs; its `count_calls_with_arg(val)` is the value `val`.
//! `memoize_tag` keys a production on a tagged value, or on keys given with it, in place of
//! what the value reads. Not ported: the flaky `custom_malloc` case (no allocator hook).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tessera::prelude::*;

/// Counts printed lines by their last word, the tag `counted` gives.
#[derive(Clone, Default)]
pub struct Counts(Arc<Mutex<HashMap<String, usize>>>);

impl Counts {
    pub fn handler(&self) -> PrintHandler {
        let counts = self.0.clone();
        PrintHandler::new(move |line| {
            let tag = line.rsplit(' ').next().unwrap_or("").to_string();
            *counts.lock().unwrap().entry(tag).or_default() += 1;
        })
    }
    /// Points computed so far by the values tagged `tag`.
    pub fn of(&self, tag: &str) -> usize {
        self.0.lock().unwrap().get(tag).copied().unwrap_or(0)
    }
}

/// `value`, printing a line ending in `tag` at each point computed.
pub fn counted(value: impl Into<Expr>, tag: &str) -> Expr {
    print(value, &[tag.into()])
}

fn u8_of(e: impl Into<Expr>) -> Expr {
    cast(Type::u8(), e)
}

fn jit(f: &Func) -> Compiled {
    Pipeline::new(f).compile_jit(&Target::host()).unwrap()
}

fn run_u8(c: &Compiled, inputs: &Inputs, extents: &[i64]) -> Buffer<u8> {
    let mins = vec![0; extents.len()];
    c.realize_as::<u8>(inputs, &mins, extents).unwrap()
}

#[test]
fn a_scalar_func_is_computed_once() {
    let counts = Counts::default();
    let (f, f_memoized) = (Func::new("f"), Func::new("f_memoized"));
    f_memoized.define((), counted(u8_of(42), "count")).unwrap();
    f.define((), f_memoized.at(())).unwrap();
    f_memoized.compute_root().memoize();
    let c = jit(&f);
    let inputs = Inputs::new().custom_print(counts.handler());
    for _ in 0..2 {
        assert_eq!(run_u8(&c, &inputs, &[]).get(&[]), 42);
    }
    assert_eq!(counts.of("count"), 1);
}

#[test]
fn a_param_the_func_depends_on_is_part_of_the_key() {
    let counts = Counts::default();
    let coord = Param::<i32>::new("coord");
    let (f, g) = (Func::new("f"), Func::new("g"));
    let (x, y) = (Var::new("x"), Var::new("y"));
    // Halide's extern takes `coord` as its coordinates: here the print shows it.
    f.define(
        (),
        print(
            u8_of(42),
            &["coord".into(), coord.expr().into(), "count".into()],
        ),
    )
    .unwrap();
    f.compute_root().memoize();
    g.define((x, y), f.at(())).unwrap();
    let c = jit(&g);
    for (value, computed) in [(0, 1), (1, 2)] {
        let inputs = Inputs::new()
            .custom_print(counts.handler())
            .param(coord.bind(value));
        for _ in 0..2 {
            let out = run_u8(&c, &inputs, &[256, 256]);
            assert!(out.data().iter().all(|&v| v == 42));
        }
        assert_eq!(counts.of("count"), computed, "coord {value}");
    }
}

#[test]
fn a_producer_called_twice_is_computed_once() {
    let counts = Counts::default();
    let (count_calls, f) = (Func::new("count_calls"), Func::new("f"));
    let (x, y) = (Var::new("x"), Var::new("y"));
    count_calls
        .define((x, y), counted(u8_of(42), "count"))
        .unwrap();
    f.define((x, y), count_calls.at((x, y)) + count_calls.at((x, y)))
        .unwrap();
    count_calls.compute_root().memoize();
    let c = jit(&f);
    let inputs = Inputs::new().custom_print(counts.handler());
    for _ in 0..2 {
        let out = run_u8(&c, &inputs, &[256, 256]);
        assert!(out.data().iter().all(|&v| v == 84));
    }
    assert_eq!(counts.of("count"), 256 * 256);
}

#[test]
fn two_funcs_of_equal_definitions_are_cached_apart() {
    let counts = Counts::default();
    let (c23, c42, f) = (Func::new("c23"), Func::new("c42"), Func::new("f"));
    let (x, y) = (Var::new("x"), Var::new("y"));
    c23.define((x, y), counted(u8_of(23), "count")).unwrap();
    c42.define((x, y), counted(u8_of(42), "count")).unwrap();
    f.define((x, y), c23.at((x, y)) + c42.at((x, y))).unwrap();
    c23.compute_root().memoize();
    c42.compute_root().memoize();
    let c = jit(&f);
    let inputs = Inputs::new().custom_print(counts.handler());
    for _ in 0..2 {
        let out = run_u8(&c, &inputs, &[256, 256]);
        assert!(out.data().iter().all(|&v| v == 23 + 42));
    }
    assert_eq!(counts.of("count"), 2 * 256 * 256);
}

#[test]
fn each_funcs_own_params_are_its_key() {
    let counts = Counts::default();
    let (val1, val2) = (Param::<u8>::new("val1"), Param::<u8>::new("val2"));
    let (c1, c2, f) = (Func::new("c1"), Func::new("c2"), Func::new("f"));
    let (x, y) = (Var::new("x"), Var::new("y"));
    c1.define((x, y), counted(val1.expr(), "count")).unwrap();
    c2.define((x, y), counted(val2.expr(), "count")).unwrap();
    f.define((x, y), c1.at((x, y)) + c2.at((x, y))).unwrap();
    c1.compute_root().memoize();
    c2.compute_root().memoize();
    let c = jit(&f);
    // Halide's sequence of values; the two productions cached stay cached.
    for (v1, v2) in [(23, 42), (23, 42), (42, 42), (23, 42), (42, 42), (42, 57)] {
        let inputs = Inputs::new()
            .custom_print(counts.handler())
            .param(val1.bind(v1))
            .param(val2.bind(v2));
        let out = run_u8(&c, &inputs, &[256, 256]);
        assert!(out.data().iter().all(|&v| v == v1.wrapping_add(v2)));
    }
    assert_eq!(counts.of("count"), 4 * 256 * 256);
}

#[test]
fn a_float_param_is_keyed_by_its_value_not_by_what_the_func_makes_of_it() {
    let counts = Counts::default();
    let val = Param::<f32>::new("val");
    let (count_calls, f) = (Func::new("count_calls"), Func::new("f"));
    let (x, y) = (Var::new("x"), Var::new("y"));
    count_calls
        .define((x, y), counted(u8_of(val.expr()), "count"))
        .unwrap();
    f.define((x, y), count_calls.at((x, y)) + count_calls.at((x, y)))
        .unwrap();
    count_calls.compute_root().memoize();
    let c = jit(&f);
    for v in [23.0f32, 23.4] {
        let inputs = Inputs::new()
            .custom_print(counts.handler())
            .param(val.bind(v));
        let out = run_u8(&c, &inputs, &[256, 256]);
        assert!(out.data().iter().all(|&v| v == 46));
    }
    assert_eq!(counts.of("count"), 2 * 256 * 256);
}

#[test]
fn a_memoize_tag_keys_by_the_tagged_value() {
    // As the case above, with the u8 the float makes tagged: 23.0 and 23.4 are one key.
    let counts = Counts::default();
    let val = Param::<f32>::new("val");
    let (count_calls, f) = (Func::new("count_calls"), Func::new("f"));
    let (x, y) = (Var::new("x"), Var::new("y"));
    count_calls
        .define((x, y), counted(memoize_tag(u8_of(val.expr())), "count"))
        .unwrap();
    f.define((x, y), count_calls.at((x, y)) + count_calls.at((x, y)))
        .unwrap();
    count_calls.compute_root().memoize();
    let c = jit(&f);
    for (v, computed) in [(23.0f32, 1), (23.4, 1), (24.0, 2), (23.2, 2)] {
        let inputs = Inputs::new()
            .custom_print(counts.handler())
            .param(val.bind(v));
        let out = run_u8(&c, &inputs, &[256, 256]);
        let want = 2 * (v as u8);
        assert!(out.data().iter().all(|&o| o == want), "val {v}");
        assert_eq!(counts.of("count"), computed * 256 * 256, "val {v}");
        // The evaluator and the interpreter, without a cache, agree.
        let quiet = Counts::default();
        let evaluated = Evaluator::new()
            .with_custom_print(quiet.handler())
            .with_param(val.bind(v))
            .realize_as::<u8>(&f, &[0, 0], &[16, 16])
            .unwrap();
        assert!(evaluated.data().iter().all(|&o| o == want), "val {v}");
        let interpreted = Pipeline::new(&f)
            .realize_interp(
                &Inputs::new()
                    .custom_print(quiet.handler())
                    .param(val.bind(v)),
                &[0, 0],
                &[16, 16],
            )
            .unwrap();
        let interpreted = interpreted.buffers[0].clone().into_typed::<u8>().unwrap();
        assert!(interpreted.data().iter().all(|&o| o == want), "val {v}");
    }
}

#[test]
fn the_region_computed_is_part_of_the_key() {
    // Bounds computed not equal to bounds realized: g, vectorized by 8, reads f at 4 and
    // at `index`.
    let counts = Counts::default();
    let (val, index) = (Param::<f32>::new("val"), Param::<i32>::new("index"));
    let (count_calls, f, g, h) = (
        Func::new("count_calls"),
        Func::new("f"),
        Func::new("g"),
        Func::new("h"),
    );
    let x = Var::new("x");
    count_calls.define(x, u8_of(val.expr())).unwrap();
    f.define(x, counted(count_calls.at(x) + u8_of(x), "count"))
        .unwrap();
    g.define(x, f.at(x)).unwrap();
    h.define(x, g.at(4) + g.at(index.expr())).unwrap();
    f.compute_root().memoize();
    g.vectorize(x, 8).compute_at(&h, x);
    let c = jit(&h);
    let mut productions = Vec::new();
    for i in [2, 4, 4] {
        let inputs = Inputs::new()
            .custom_print(counts.handler())
            .param(val.bind(23.0))
            .param(index.bind(i));
        let out = run_u8(&c, &inputs, &[1]);
        assert_eq!(out.get(&[0]), (2 * 23 + 4 + i) as u8, "index {i}");
        productions.push(counts.of("count"));
    }
    // Another index, another region: computed again; the same one again: cached.
    assert!(productions[0] > 0);
    assert!(productions[1] > productions[0]);
    assert_eq!(productions[2], productions[1]);
}

/// Halide's `g(x, y) = f(x, y) + f(x - 1, y) + f(x + 1, y)` over f = count_calls + x.
fn sum_of_three(f: &Func) -> Func {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let g = Func::new("g");
    g.define((x, y), f.at((x, y)) + f.at((x - 1, y)) + f.at((x + 1, y)))
        .unwrap();
    g
}

fn expected_sum_of_three(r: i64, x: i64) -> u8 {
    (3 * r + x + (x - 1) + (x + 1)) as u8
}

#[test]
fn a_tuple_func_and_its_producer_are_computed_once() {
    let counts = Counts::default();
    let val = Param::<f32>::new("val");
    let (count_calls, f, g) = (Func::new("count_calls"), Func::new("f"), Func::new("g"));
    let (x, y) = (Var::new("x"), Var::new("y"));
    count_calls
        .define((x, y), counted(u8_of(val.expr()), "count"))
        .unwrap();
    f.define((x, y), vec![count_calls.at((x, y)) + u8_of(x), x.into()])
        .unwrap();
    count_calls.compute_root().memoize();
    f.compute_root().memoize();
    g.define(
        (x, y),
        vec![
            f.value_at((x, y), 0) + f.value_at((x - 1, y), 0) + f.value_at((x + 1, y), 0),
            f.value_at((x, y), 1),
        ],
    )
    .unwrap();
    let c = jit(&g);
    let inputs = Inputs::new()
        .custom_print(counts.handler())
        .param(val.bind(23.0));
    for _ in 0..2 {
        let out = c.realize(&inputs, &[0, 0], &[128, 128]).unwrap();
        let (out0, out1) = (
            out[0].clone().into_typed::<u8>().unwrap(),
            out[1].clone().into_typed::<i32>().unwrap(),
        );
        for j in 0..128 {
            for i in 0..128 {
                assert_eq!(out0.get(&[i, j]), expected_sum_of_three(23, i));
                assert_eq!(out1.get(&[i, j]), i as i32);
            }
        }
    }
    // count_calls over f's region, x in [-1, 128], once.
    assert_eq!(counts.of("count"), 130 * 128);
}

/// Halide's eviction pipeline: count_calls memoized, g reading f around each point.
fn eviction_pipeline(val: &Param<f32>) -> Func {
    let (count_calls, f) = (Func::new("count_calls"), Func::new("f"));
    let (x, y) = (Var::new("x"), Var::new("y"));
    count_calls
        .define((x, y), counted(u8_of(val.expr()), "count"))
        .unwrap();
    f.define((x, y), count_calls.at((x, y)) + u8_of(x)).unwrap();
    count_calls.compute_root().memoize();
    sum_of_three(&f)
}

/// Halide's `rand() % 256`: a fixed sequence of values in [0, 256).
fn values(n: usize, seed: u64) -> Vec<i64> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) % 256) as i64
        })
        .collect()
}

/// The misses of a least-recently-used cache of `capacity` entries over `keys`.
fn lru_misses(keys: &[i64], capacity: usize) -> usize {
    let mut cache: Vec<i64> = Vec::new();
    let mut misses = 0;
    for &k in keys {
        if let Some(at) = cache.iter().position(|&c| c == k) {
            cache.remove(at);
        } else {
            misses += 1;
            if cache.len() == capacity {
                cache.remove(0);
            }
        }
        cache.push(k);
    }
    misses
}

#[test]
fn a_full_cache_drops_its_least_recently_used_productions() {
    let counts = Counts::default();
    let val = Param::<f32>::new("val");
    let g = eviction_pipeline(&val);
    let c = jit(&g);
    c.set_memoize_cache_size(1_000_000);
    let rs = values(1000, 1);
    let mut entry_bytes = 0;
    for &r in &rs {
        let inputs = Inputs::new()
            .custom_print(counts.handler())
            .param(val.bind(r as f32));
        let out = run_u8(&c, &inputs, &[128, 128]);
        for j in 0..100 {
            for i in 0..100 {
                assert_eq!(out.get(&[i, j]), expected_sum_of_three(r, i));
            }
        }
        let (entries, bytes) = c.memoize_cache_usage();
        entry_bytes = bytes / entries;
        assert!(bytes <= 1_000_000);
    }
    // The count of a plain-Rust LRU cache of as many entries as fit in the size.
    let misses = lru_misses(&rs, 1_000_000 / entry_bytes);
    assert_eq!(counts.of("count"), misses * 130 * 128);
    assert!(misses < rs.len(), "some runs hit ({misses} misses)");
}

#[test]
fn a_production_bigger_than_the_cache_is_computed_every_time() {
    let counts = Counts::default();
    let val = Param::<f32>::new("val");
    let g = eviction_pipeline(&val);
    let c = jit(&g);
    c.set_memoize_cache_size(1_000_000);
    let run = |r: i64, extent: i64| {
        let inputs = Inputs::new()
            .custom_print(counts.handler())
            .param(val.bind(r as f32));
        let out = run_u8(&c, &inputs, &[extent, extent]);
        for j in (0..extent).step_by(7) {
            for i in 0..extent - 2 {
                assert_eq!(out.get(&[i, j]), expected_sum_of_three(r, i));
            }
        }
    };
    for r in values(100, 2) {
        run(r, 128);
    }
    let before = counts.of("count");
    // 1026 x 1024 bytes: more than the cache holds.
    run(7, 1024);
    run(7, 1024);
    assert_eq!(counts.of("count") - before, 2 * 1026 * 1024);
    let (_, bytes) = c.memoize_cache_usage();
    assert!(bytes <= 1_000_000);
    // The small productions are cached again.
    let before = counts.of("count");
    run(9, 128);
    run(9, 128);
    assert_eq!(counts.of("count") - before, 130 * 128);
}

#[test]
fn parallel_loops_share_the_cache() {
    let val = Param::<f32>::new("val");
    let (count_calls, f, g) = (Func::new("count_calls"), Func::new("f"), Func::new("g"));
    let (x, y) = (Var::new("x"), Var::new("y"));
    count_calls
        .define((x, y), counted(u8_of(val.expr()), "count"))
        .unwrap();
    f.define((x, y), count_calls.at((x, y % 4)) + u8_of(x))
        .unwrap();
    g.define((x, y), f.at((x, y)) + f.at((x - 1, y)) + f.at((x + 1, y)))
        .unwrap();
    count_calls.compute_at(&f, y).memoize();
    // Halide's `g.parallel(y, 16)` splits y keeping its name outside: f is computed per
    // strip of 16 rows.
    g.split(y, "yo", "yi", 16).parallel("yo");
    f.compute_at(&g, "yo").memoize();
    for threads in [1, 0] {
        let counts = Counts::default();
        let mut c = jit(&g);
        c.set_threads(threads).unwrap();
        c.set_memoize_cache_size(1_000_000);
        let inputs = Inputs::new()
            .custom_print(counts.handler())
            .param(val.bind(23.0));
        for _ in 0..2 {
            let out = run_u8(&c, &inputs, &[128, 128]);
            for j in 0..128 {
                for i in 0..128 {
                    assert_eq!(out.get(&[i, j]), expected_sum_of_three(23, i));
                }
            }
        }
        // count_calls has four rows to compute (y % 4); each is computed once by a single
        // thread, and at most once by each thread that misses it before it is stored.
        let rows = counts.of("count") / 130;
        assert_eq!(counts.of("count") % 130, 0);
        if threads == 1 {
            assert_eq!(rows, 4);
        } else {
            let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
            assert!((4..=4 * workers).contains(&rows), "{rows} rows");
        }
    }
}

#[test]
fn a_memoize_tag_of_several_values_keys_by_the_tags() {
    // Halide's "hash of image data" case: g sums an input image under a tag keyed by
    // `key` alone, so g may be memoized though it reads an image, and changing the image
    // without changing the key serves the stale sum (Halide's test allows either value;
    // here the cache keeps the entry, so it is the stale one).
    let counts = Counts::default();
    let input = ImageParam::new(Type::u8(), 1, "input");
    let key = Param::<i32>::new("key");
    let (f, g) = (Func::new("f"), Func::new("g"));
    let extent = RDom::new([(input.min(0), input.extent(0))]);
    let tagged = memoize_tag_with(sum(input.at(extent.x())), &[key.expr()]);
    g.define((), counted(tagged, "count")).unwrap();
    f.define((), g.at(()) + 42).unwrap();
    g.compute_root().memoize();
    let c = jit(&f);
    let mut image = Buffer::<u8>::from_fn(&[0], &[10], |_| 42);
    let run = |image: &Buffer<u8>, k: i32| {
        let inputs = Inputs::new()
            .custom_print(counts.handler())
            .image(&input, image.clone())
            .param(key.bind(k));
        run_u8(&c, &inputs, &[]).get(&[])
    };
    assert_eq!(run(&image, 0), (462 % 256) as u8);
    assert_eq!(counts.of("count"), 1);
    image.set(&[0], 41);
    assert_eq!(run(&image, 0), (462 % 256) as u8);
    assert_eq!(counts.of("count"), 1);
    assert_eq!(run(&image, 1), (461 % 256) as u8);
    assert_eq!(counts.of("count"), 2);
    // Without a cache the sum is always fresh.
    let evaluated = Evaluator::new()
        .with_custom_print(Counts::default().handler())
        .with_input(&input, image.clone())
        .with_param(key.bind(0))
        .realize_as::<u8>(&f, &[], &[])
        .unwrap();
    assert_eq!(evaluated.get(&[]), (461 % 256) as u8);
}

#[test]
fn a_chain_of_stages_is_cached_at_its_memoized_end() {
    let counts = Counts::default();
    let val = Param::<f32>::new("val");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), u8_of((x << 8) + y)).unwrap();
    f.compute_root();
    let mut prev = f;
    let mut stages = Vec::new();
    for i in 0..4 {
        let stage = Func::new(&format!("stage{i}"));
        let tag = format!("stage{i}");
        stage
            .define((x, y), counted(prev.at((x, y)) + u8_of(val.expr()), &tag))
            .unwrap();
        stage.compute_root();
        stages.push(stage.clone());
        prev = stage;
    }
    stages[3].memoize();
    let output = Func::new("output");
    output.define((x, y), stages[3].at((x, y))).unwrap();
    let c = jit(&output);
    let inputs = Inputs::new()
        .custom_print(counts.handler())
        .param(val.bind(23.0));
    for _ in 0..2 {
        let out = run_u8(&c, &inputs, &[128, 128]);
        for j in 0..128 {
            for i in 0..128 {
                assert_eq!(out.get(&[i, j]), ((i << 8) + j + 4 * 23) as u8);
            }
        }
    }
    // The stages before the memoized one are computed by each run (as in Halide, where
    // they are not memoized); the memoized one once.
    for i in 0..3 {
        assert_eq!(counts.of(&format!("stage{i}")), 2 * 128 * 128);
    }
    assert_eq!(counts.of("stage3"), 128 * 128);
}

#[test]
fn an_input_buffers_extent_is_part_of_the_key() {
    let counts = Counts::default();
    let input = ImageParam::new(Type::u8(), 1, "input");
    let (f, f_memoized) = (Func::new("f"), Func::new("f_memoized"));
    f_memoized
        .define(
            (),
            counted(u8_of(42) + u8_of(input.dim(0).extent()), "count"),
        )
        .unwrap();
    f_memoized.compute_root().memoize();
    f.define((), f_memoized.at(())).unwrap();
    let c = jit(&f);
    for (extent, computed) in [(1, 1), (10, 2)] {
        let buffer = Buffer::<u8>::from_fn(&[0], &[extent], |_| 0);
        let inputs = Inputs::new()
            .custom_print(counts.handler())
            .image(&input, buffer);
        for _ in 0..2 {
            assert_eq!(run_u8(&c, &inputs, &[]).get(&[]), 42 + extent as u8);
        }
        assert_eq!(counts.of("count"), computed, "extent {extent}");
    }
}

#[test]
fn eviction_keys_drop_the_entries_stored_under_them() {
    let counts = Counts::default();
    // Halide's `Param<void *>` and extern `computed_eviction_key(5)` (2020 + 5) are a u64
    // Param and an expression of one here.
    let (p, base) = (Param::<u64>::new("p"), Param::<u64>::new("base"));
    let f = Func::new("f");
    let memoized: Vec<Func> = ["one", "two", "three"]
        .iter()
        .map(|n| Func::new(&format!("memoized_{n}")))
        .collect();
    for m in &memoized {
        m.define((), counted(u8_of(42), "count")).unwrap();
        m.compute_root();
    }
    memoized[0].memoize_with_eviction_key(1);
    memoized[1].memoize_with_eviction_key(p.expr());
    memoized[2].memoize_with_eviction_key(base.expr() + 5);
    f.define(
        (),
        memoized[0].at(()) + memoized[1].at(()) + memoized[2].at(()),
    )
    .unwrap();
    let c = jit(&f);
    let inputs = Inputs::new()
        .custom_print(counts.handler())
        .param(p.bind(0xdead_beef))
        .param(base.bind(2020));
    let run = || assert_eq!(run_u8(&c, &inputs, &[]).get(&[]), 126);
    run();
    run();
    assert_eq!(counts.of("count"), 3);
    c.memoize_evict(1);
    run();
    assert_eq!(counts.of("count"), 4);
    c.memoize_evict(1);
    run();
    assert_eq!(counts.of("count"), 5);
    c.memoize_evict(1);
    c.memoize_evict(0xdead_beef);
    run();
    assert_eq!(counts.of("count"), 7);
    c.memoize_evict(2025);
    run();
    assert_eq!(counts.of("count"), 8);
}

#[test]
fn every_runner_computes_the_values_of_a_memoized_func() {
    // The evaluator computes from the definitions and the interpreter has no compiled object
    // to keep a cache on: both compute every time, with the native code's values.
    let counts = Counts::default();
    let val = Param::<f32>::new("val");
    let g = eviction_pipeline(&val);
    let inputs = Inputs::new()
        .custom_print(counts.handler())
        .param(val.bind(5.0));
    let pipeline = Pipeline::new(&g);
    let native = run_u8(&jit(&g), &inputs, &[64, 64]);
    for _ in 0..2 {
        let interpreted = pipeline
            .realize_interp(&inputs, &[0, 0], &[64, 64])
            .unwrap();
        let interpreted = interpreted.buffers[0].clone().into_typed::<u8>().unwrap();
        assert_eq!(interpreted, native);
    }
    let evaluated = Evaluator::new()
        .with_custom_print(counts.handler())
        .with_param(val.bind(5.0))
        .realize_as::<u8>(&g, &[0, 0], &[64, 64])
        .unwrap();
    assert_eq!(evaluated, native);
    for j in 0..64 {
        for i in 0..64 {
            assert_eq!(native.get(&[i, j]), expected_sum_of_three(5, i));
        }
    }
    // Native once, the interpreter twice, the evaluator per point it needs.
    assert!(counts.of("count") >= 3 * 66 * 64);
}
