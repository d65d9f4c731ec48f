//! Halide's `test/correctness/async.cpp`: producers scheduled `async_` run as tasks of their
//! own beside their consumers, at root, folded and sliding along x or y, inside parallel
//! loops, nested, chained, with a footprint of varying size, downsampled, and with a Func
//! computed inside the async one. Halide's `expensive` extern is a slow identity; here it
//! is the identity. Each case's values are checked with plain Rust on the interpreter and
//! on the JIT at 1 and 2 threads. Halide's `fold_storage(var, 8, false)` (a fold whose window
//! moves backwards) is `fold_storage(var, 8)`: Tessera finds the direction itself. The four
//! folds of windows moving backwards or of varying extent are built by functions shared with
//! `storage_folding.rs`, which checks them without `async_` and checks their allocations.

use tessera::prelude::*;

/// Halide's `expensive(x)`: a slow identity there, the identity here.
fn expensive(e: Expr) -> Expr {
    e
}

/// Every point of the box `[0, extents)`.
fn points(extents: &[i64]) -> Vec<Vec<i64>> {
    extents.iter().fold(vec![Vec::new()], |points, &extent| {
        points
            .into_iter()
            .flat_map(|p| {
                (0..extent).map(move |c| {
                    let mut q = p.clone();
                    q.push(c);
                    q
                })
            })
            .collect()
    })
}

fn assert_values(out: &Buffer<i32>, extents: &[i64], expected: &impl Fn(&[i64]) -> i64, on: &str) {
    for p in points(extents) {
        assert_eq!(i64::from(out.get(&p)), expected(&p), "{on}: at {p:?}");
    }
}

/// Computes `output` over `[0, extents)` on the interpreter and on the JIT with 1 and 2
/// worker threads, checking every value against `expected(point)`.
pub(crate) fn check_everywhere(output: &Func, extents: &[i64], expected: impl Fn(&[i64]) -> i64) {
    let pipeline = Pipeline::new(output);
    let mins = vec![0; extents.len()];
    let interpreted = pipeline
        .realize_interp(&Inputs::new(), &mins, extents)
        .unwrap();
    let AnyBuffer::I32(out) = &interpreted.buffers[0] else {
        panic!("the output is i32");
    };
    assert_values(out, extents, &expected, "interpreter");
    let mut compiled = pipeline.compile_jit(&Target::host()).unwrap();
    for threads in [1, 2] {
        compiled.set_threads(threads).unwrap();
        let out = compiled
            .realize_as::<i32>(&Inputs::new(), &mins, extents)
            .unwrap();
        assert_values(&out, extents, &expected, &format!("JIT, {threads} threads"));
    }
}

#[test]
fn compute_root_async_producer() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (producer, consumer) = (Func::new("producer"), Func::new("consumer"));
    producer.define((x, y), x + y).unwrap();
    consumer
        .define(
            (x, y),
            expensive(producer.at((x - 1, y - 1)) + producer.at((x + 1, y + 1))),
        )
        .unwrap();
    consumer.compute_root();
    producer.compute_root().async_();
    check_everywhere(&consumer, &[16, 16], |p| 2 * (p[0] + p[1]));
}

#[test]
fn sliding_and_folding_over_a_single_variable() {
    let x = Var::new("x");
    let (producer, consumer) = (Func::new("producer"), Func::new("consumer"));
    producer.define(x, expensive(x.into())).unwrap();
    consumer
        .define(x, expensive(producer.at(x) + producer.at(x - 1)))
        .unwrap();
    consumer.compute_root();
    fold_by_8(&producer, &consumer, x, true);
    check_everywhere(&consumer, &[16], |p| 2 * p[0] - 1);
}

/// The producer of one of the folds shared with `storage_folding.rs`, stored at the root and
/// computed per `var` of `consumer`, folded by 8 along `var`, async if `asynchronous`.
fn fold_by_8(producer: &Func, consumer: &Func, var: Var, asynchronous: bool) {
    producer
        .store_root()
        .fold_storage(var, 8)
        .compute_at(consumer, var);
    if asynchronous {
        producer.async_();
    }
}

/// `consumer(x) = producer(-x) + producer(-x + 1)` over `[0, 16)`, the producer folded by 8
/// along x: its window moves backwards. Returns the consumer; its values are
/// `single_variable_flipped_value`.
pub(crate) fn single_variable_flipped(asynchronous: bool) -> Func {
    let x = Var::new("x");
    let (producer, consumer) = (Func::new("producer"), Func::new("consumer"));
    producer.define(x, expensive(x.into())).unwrap();
    consumer
        .define(x, expensive(producer.at(-x) + producer.at(-x + 1)))
        .unwrap();
    consumer.compute_root();
    fold_by_8(&producer, &consumer, x, asynchronous);
    consumer
}

pub(crate) fn single_variable_flipped_value(p: &[i64]) -> i64 {
    -2 * p[0] + 1
}

#[test]
fn sliding_and_folding_over_a_single_variable_flipped() {
    let consumer = single_variable_flipped(true);
    check_everywhere(&consumer, &[16], single_variable_flipped_value);
}

/// `consumer(x, y) = producer(x - 1, y - 1) + producer(x + 1, y + 1)`, `producer = x + y`.
fn diagonal_stencil() -> (Func, Func, Var, Var) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (producer, consumer) = (Func::new("producer"), Func::new("consumer"));
    producer.define((x, y), x + y).unwrap();
    consumer
        .define(
            (x, y),
            expensive(producer.at((x - 1, y - 1)) + producer.at((x + 1, y + 1))),
        )
        .unwrap();
    consumer.compute_root();
    (producer, consumer, x, y)
}

#[test]
fn sliding_and_folding_over_y() {
    let (producer, consumer, _, y) = diagonal_stencil();
    // The producer can run 5 scanlines ahead.
    fold_by_8(&producer, &consumer, y, true);
    check_everywhere(&consumer, &[16, 16], |p| 2 * (p[0] + p[1]));
}

#[test]
fn sliding_over_x_and_y_folding_over_y() {
    let (producer, consumer, x, y) = diagonal_stencil();
    producer
        .store_root()
        .fold_storage(y, 8)
        .compute_at(&consumer, x)
        .async_();
    check_everywhere(&consumer, &[16, 16], |p| 2 * (p[0] + p[1]));
}

#[test]
fn sliding_over_x_folding_over_x_and_y() {
    // One semaphore per folded dimension.
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (producer, consumer) = (Func::new("producer"), Func::new("consumer"));
    producer.define((x, y), x + y).unwrap();
    consumer
        .define(
            (x, y),
            expensive(producer.at((x - 1, y)) + producer.at((x + 1, y))),
        )
        .unwrap();
    consumer.compute_root();
    producer
        .store_root()
        .fold_storage(x, 8)
        .fold_storage(y, 2)
        .compute_at(&consumer, x)
        .async_();
    check_everywhere(&consumer, &[16, 16], |p| 2 * (p[0] + p[1]));
}

/// `consumer = producer_1(x ± 1, y) + producer_2(x ± 2, y)`, `producer_1 = x`,
/// `producer_2 = y`, each through `wrap`.
fn two_producers(wrap: fn(Expr) -> Expr) -> (Func, Func, Func, Var, Var) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (producer_1, producer_2, consumer) = (
        Func::new("producer_1"),
        Func::new("producer_2"),
        Func::new("consumer"),
    );
    producer_1.define((x, y), wrap(x.into())).unwrap();
    producer_2.define((x, y), wrap(y.into())).unwrap();
    consumer
        .define(
            (x, y),
            wrap(
                producer_1.at((x - 1, y))
                    + producer_1.at((x + 1, y))
                    + producer_2.at((x - 2, y))
                    + producer_2.at((x + 2, y)),
            ),
        )
        .unwrap();
    (producer_1, producer_2, consumer, x, y)
}

#[test]
fn multiple_async_producers_at_root() {
    let (producer_1, producer_2, consumer, _, _) = two_producers(|e| e);
    producer_1.compute_root().async_();
    producer_2.compute_root().async_();
    check_everywhere(&consumer, &[16, 16], |p| 2 * (p[0] + p[1]));
}

#[test]
fn multiple_async_producers_inside_a_parallel_loop() {
    let (producer_1, producer_2, consumer, _, y) = two_producers(|e| e);
    producer_1.compute_at(&consumer, y).async_();
    producer_2.compute_at(&consumer, y).async_();
    consumer.parallel(y);
    check_everywhere(&consumer, &[16, 16], |p| 2 * (p[0] + p[1]));
}

#[test]
fn multiple_async_producers_inside_a_parallel_loop_sliding_within_it() {
    let (producer_1, producer_2, consumer, x, y) = two_producers(expensive);
    producer_1
        .compute_at(&consumer, x)
        .store_at(&consumer, y)
        .async_();
    producer_2
        .compute_at(&consumer, x)
        .store_at(&consumer, y)
        .async_();
    consumer.parallel(y);
    check_everywhere(&consumer, &[16, 16], |p| 2 * (p[0] + p[1]));
}

#[test]
fn nested_async_tasks() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (f0, f1, f2) = (Func::new("f0"), Func::new("f1"), Func::new("f2"));
    f0.define((x, y), x + y).unwrap();
    f1.define((x, y), f0.at((x - 1, y - 1)) + f0.at((x + 1, y + 1)))
        .unwrap();
    f2.define((x, y), f1.at((x - 1, y - 1)) + f1.at((x + 1, y + 1)))
        .unwrap();
    f2.compute_root();
    f1.compute_at(&f2, y).async_();
    f0.compute_at(&f1, x).async_();
    check_everywhere(&f2, &[16, 16], |p| 4 * (p[0] + p[1]));
}

#[test]
fn two_async_producer_consumer_pairs_over_x_in_a_pair_over_y() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (producer_1, consumer_1, producer_2, consumer_2) = (
        Func::new("producer_1"),
        Func::new("consumer_1"),
        Func::new("producer_2"),
        Func::new("consumer_2"),
    );
    producer_1.define((x, y), x + y).unwrap();
    consumer_1
        .define(
            (x, y),
            producer_1.at((x - 1, y)) + producer_1.at((x + 1, y)),
        )
        .unwrap();
    producer_2
        .define(
            (x, y),
            consumer_1.at((x, y - 1)) + consumer_1.at((x, y + 1)),
        )
        .unwrap();
    consumer_2
        .define(
            (x, y),
            producer_2.at((x - 1, y)) + producer_2.at((x + 1, y)),
        )
        .unwrap();
    consumer_2.compute_root();
    producer_2
        .store_at(&consumer_2, y)
        .compute_at(&consumer_2, x)
        .async_();
    consumer_1.store_root().compute_at(&consumer_2, y).async_();
    producer_1
        .store_at(&consumer_2, y)
        .compute_at(&consumer_1, x)
        .async_();
    check_everywhere(&consumer_2, &[16, 16], |p| 8 * (p[0] + p[1]));
}

/// `consumer(x, y) = producer(x - 1, ±min(y - 1, 15)) + producer(x + 1, ±min(y + 1, 17))`
/// (the rows negated, the window moving backwards, if `flipped`), `producer = x + y`, folded
/// by 8 along y: the window's extent varies, up to 3 rows. Returns the consumer; its values
/// are `varying_footprint_value`.
pub(crate) fn varying_footprint(flipped: bool, asynchronous: bool) -> Func {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (producer, consumer) = (Func::new("producer"), Func::new("consumer"));
    producer.define((x, y), x + y).unwrap();
    let sign = |row: Expr| if flipped { -row } else { row };
    consumer
        .define(
            (x, y),
            expensive(
                producer.at((x - 1, sign(min(y - 1, 15))))
                    + producer.at((x + 1, sign(min(y + 1, 17)))),
            ),
        )
        .unwrap();
    consumer.compute_root();
    fold_by_8(&producer, &consumer, y, asynchronous);
    consumer
}

pub(crate) fn varying_footprint_value(flipped: bool, p: &[i64]) -> i64 {
    let (x, y) = (p[0], p[1]);
    let sign = if flipped { -1 } else { 1 };
    (x - 1 + sign * (y - 1).min(15)) + (x + 1 + sign * (y + 1).min(17))
}

#[test]
fn folding_over_y_with_a_varying_footprint() {
    let consumer = varying_footprint(false, true);
    check_everywhere(&consumer, &[128, 128], |p| {
        varying_footprint_value(false, p)
    });
}

#[test]
fn folding_over_y_with_a_varying_footprint_flipped() {
    let consumer = varying_footprint(true, true);
    check_everywhere(&consumer, &[128, 128], |p| varying_footprint_value(true, p));
}

#[test]
fn downsample_by_2_in_y_sliding_and_folding() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (producer, consumer) = (Func::new("producer"), Func::new("consumer"));
    producer.define((x, y), x + y).unwrap();
    // A lousy [1 1 1 1] downsampling kernel.
    consumer
        .define(
            (x, y),
            producer.at((x, 2 * y - 1))
                + producer.at((x, 2 * y))
                + producer.at((x, 2 * y + 1))
                + producer.at((x, 2 * y + 2)),
        )
        .unwrap();
    consumer.compute_root();
    fold_by_8(&producer, &consumer, y, true);
    check_everywhere(&consumer, &[16, 64], |p| 4 * p[0] + 8 * p[1] + 2);
}

/// A 2x nearest-neighbour upsample of `producer = x + y` followed by a [1 2 3 2 1]
/// downsample by 3, the consumer's rows unrolled by 2, the producer folded by 8 along y: the
/// window of two rows has a varying extent, up to 8 rows. Returns the consumer; its values
/// are `downsample_by_1_5_value`.
pub(crate) fn downsample_by_1_5(asynchronous: bool) -> Func {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (producer, consumer) = (Func::new("producer"), Func::new("consumer"));
    producer.define((x, y), x + y).unwrap();
    // A 2x nearest-neighbour upsample followed by a [1 2 3 2 1] downsample by 3.
    let row = |k: i32| producer.at((x, 3 * (y / 2) + k));
    consumer
        .define(
            (x, y),
            select(
                (y % 2).eq_(0),
                row(-1) + 5 * row(0) + 3 * row(1),
                3 * row(1) + 5 * row(2) + row(3),
            ),
        )
        .unwrap();
    consumer.compute_root().align_bounds(y, 2).unroll(y, 2);
    fold_by_8(&producer, &consumer, y, asynchronous);
    consumer
}

pub(crate) fn downsample_by_1_5_value(p: &[i64]) -> i64 {
    let (x, y) = (p[0], p[1]);
    9 * x
        + ((3 * y - 1) >> 1)
        + 2 * ((3 * y) >> 1)
        + 3 * ((3 * y + 1) >> 1)
        + 2 * ((3 * y + 2) >> 1)
        + ((3 * y + 3) >> 1)
}

#[test]
fn downsample_by_1_5_in_y_sliding_and_folding() {
    let consumer = downsample_by_1_5(true);
    check_everywhere(&consumer, &[256, 256], downsample_by_1_5_value);
}

#[test]
fn stages_computed_at_the_outermost_var_of_an_async_stage_join_it() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (producer, producer_friend, consumer) = (
        Func::new("producer"),
        Func::new("producer_friend"),
        Func::new("consumer"),
    );
    producer_friend.define((x, y), x + y).unwrap();
    producer
        .define((x, y), x + y + producer_friend.at((x, y)))
        .unwrap();
    consumer.define((x, y), producer.at((x, y))).unwrap();
    producer.compute_root().async_();
    consumer.compute_root();
    producer_friend.compute_at(&producer, Var::outermost());
    check_everywhere(&consumer, &[256, 256], |p| 2 * (p[0] + p[1]));
}

#[test]
fn async_on_an_inlined_func_or_the_output_is_an_error_naming_it() {
    let (producer, consumer, _, _) = diagonal_stencil();
    producer.async_();
    let message = Pipeline::new(&consumer)
        .compile_jit(&Target::host())
        .map(drop)
        .expect_err("an inlined Func cannot be async")
        .to_string();
    assert!(message.contains("producer.async_()"), "{message}");
    producer.compute_root();
    consumer.async_();
    let message = Pipeline::new(&consumer)
        .realize_interp(&Inputs::new(), &[0, 0], &[4, 4])
        .map(drop)
        .expect_err("the output cannot be async")
        .to_string();
    assert!(
        message.contains("consumer.async_()") && message.contains("output"),
        "{message}"
    );
}
