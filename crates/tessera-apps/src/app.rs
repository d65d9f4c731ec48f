//! What every app shares. An app file states only what is particular to it, by implementing
//! `AppDefinition`: its description (`description`: inputs, rules, parameters, default
//! size), its algorithm, its schedule table, its plain-Rust reference, its default inputs and
//! how its input and output extents relate. `App`, implemented for every definition, is what
//! callers use: checking inputs against the description (each input's type and shape, the
//! rules between them, a schedule's minimum output), looking up and applying schedules,
//! binding inputs and parameters, evaluating with the definition-level evaluator, running the
//! lowered loop nest on the Stmt interpreter, and the app's line in `tessera apps`.

use std::collections::HashSet;

use tessera::autoschedule::{Algorithm, AutoSchedule, AutoScheduleOptions};
use tessera::ir::visit::visit_exprs;
use tessera::ir::{CallKind, ExprKind};
use tessera::lang::function::Function;
use tessera::lang::param::ParamBinding;
use tessera::pipeline::{run_interp, Inputs, Pipeline};
use tessera::prelude::*;
use tessera::{Evaluator, LowerOptions, Lowered, Symbol};

use crate::description::{extents, mins, AppDescription, ParamSpec};
use crate::schedule::{
    infos, is_schedule_file, read_schedule_file, unknown_schedule, AppFuncs, Schedule, ScheduleInfo,
};
use crate::synthetic;

/// An app's algorithm, ready to evaluate: the Func computing the output and the input images
/// it reads, in the order the app's description declares them. Runtime parameters are
/// `Param`s named as in the description.
#[derive(Clone, Debug)]
pub struct AppPipeline {
    pub output: Func,
    pub inputs: Vec<ImageParam>,
}

/// What is particular to one app. Sizes are output sizes: an app computes a `width × height`
/// output (times channels) from inputs of `input_extents(width, height)`.
pub trait AppDefinition: Send + Sync {
    /// The app's Funcs, for its schedules to direct.
    type Funcs: AppFuncs;

    /// The app's description (usually a `const`).
    fn description(&self) -> &AppDescription;

    /// The algorithm, written once and shared by every schedule, with no schedule applied.
    fn funcs(&self) -> Result<Self::Funcs>;

    /// The app's named schedules, `manual` (the expert schedule) first.
    fn schedules(&self) -> &[Schedule<Self::Funcs>];

    /// Deterministic synthetic inputs (smooth regions, edges and noise) for an output of
    /// `width × height`, one per declared input; an error naming a buffer's size when it
    /// cannot be allocated. By default each input is `synthetic::default_input` of its type
    /// and extents.
    fn default_inputs(&self, width: i64, height: i64) -> Result<Vec<AnyBuffer>> {
        let specs = self.description().inputs;
        let extents = self.input_extents(width, height);
        (specs.iter().zip(&extents).enumerate())
            .map(|(index, (spec, extents))| synthetic::default_input(spec.ty, extents, index))
            .collect()
    }

    /// The output computed by plain Rust loops, independently of Tessera, for inputs (in
    /// declared order) that `App::check_inputs` accepted. Parameters not in `params` take
    /// their defaults.
    fn reference(&self, inputs: &[AnyBuffer], params: &[ParamBinding]) -> Result<AnyBuffer>;

    /// The extents of each input (in declared order) an output of `width × height` needs. By
    /// default each input covers the output, with its own channels.
    fn input_extents(&self, width: i64, height: i64) -> Vec<Vec<i64>> {
        let inputs = self.description().inputs;
        inputs
            .iter()
            .map(|i| i.shape.extents(width, height))
            .collect()
    }

    /// The output extents for inputs of `input_extents` (each of its declared shape), or
    /// `None` when they are too small to produce any output. An output may be empty. By
    /// default the output covers the first input's x and y, with the declared output's
    /// channels.
    fn output_extents(&self, input_extents: &[Vec<i64>]) -> Option<Vec<i64>> {
        let first = input_extents.first()?;
        let (x, y) = (first[0], first[1]);
        (x >= 0 && y >= 0).then(|| self.description().output.extents(x, y))
    }
}

/// One benchmark pipeline, as callers use it: the type-erased face of an `AppDefinition`
/// (implemented for every one, below) and the behaviour all apps share (provided methods).
pub trait App: Send + Sync {
    /// The app's description.
    fn description(&self) -> &AppDescription;
    /// The algorithm, freshly built, with no schedule applied.
    fn build(&self) -> Result<AppPipeline>;
    /// The names and minimum outputs of the app's schedules, `manual` first.
    fn schedules(&self) -> Vec<ScheduleInfo>;
    /// The algorithm, freshly built, with schedule `schedule` applied: one of the app's, or
    /// the schedule file at that path (`schedule::is_schedule_file`); an unknown name is an
    /// error listing the schedules. The automatic schedules are made for one thread per core.
    fn build_scheduled(&self, schedule: &str) -> Result<AppPipeline> {
        self.build_scheduled_for(schedule, 0)
    }
    /// `build_scheduled`, with the automatic schedules made for `threads` threads (0: one per
    /// core), the number the pipeline will run on: a schedule balanced for two threads runs
    /// one alone with half its tasks' parallelism wasted on splitting.
    fn build_scheduled_for(&self, schedule: &str, threads: usize) -> Result<AppPipeline>;
    /// The extents of each input an output of `width × height` needs (`AppDefinition`).
    fn input_extents(&self, width: i64, height: i64) -> Vec<Vec<i64>>;
    /// The output extents for inputs of `input_extents` (`AppDefinition`).
    fn output_extents(&self, input_extents: &[Vec<i64>]) -> Option<Vec<i64>>;
    /// The app's deterministic default inputs for an output of `width × height`.
    fn default_inputs(&self, width: i64, height: i64) -> Result<Vec<AnyBuffer>>;
    /// The output computed by the app's plain-Rust reference, after `check_inputs`.
    fn reference(&self, inputs: &[AnyBuffer], params: &[ParamBinding]) -> Result<AnyBuffer>;

    /// The algorithm, freshly built and unscheduled, with the estimates of an output of
    /// `width × height` and of the inputs that output needs set, and the parameters' default
    /// values: what the automatic scheduler (and `autoschedule::PipelineAnalysis`) needs.
    fn build_with_estimates(
        &self,
        (width, height): (i64, i64),
    ) -> Result<(AppPipeline, Vec<ParamBinding>)> {
        let pipeline = self.build()?;
        let description = self.description();
        let from_zero = |extents: Vec<i64>| -> Vec<(i64, i64)> {
            extents.into_iter().map(|e| (0, e)).collect()
        };
        let output = description.output.extents(width, height);
        pipeline.output.set_estimates(&from_zero(output))?;
        for (image, extents) in pipeline
            .inputs
            .iter()
            .zip(self.input_extents(width, height))
        {
            image.set_estimates(&from_zero(extents))?;
        }
        Ok((pipeline, complete_params(description.params, &[])))
    }

    /// The algorithm, freshly built and scheduled automatically as `options` ask (their
    /// parameters replaced by the app's defaults) for an output of `width × height` (the
    /// inputs that output needs), with what the scheduler chose.
    fn build_auto(
        &self,
        options: AutoScheduleOptions,
        size: (i64, i64),
    ) -> Result<(AppPipeline, AutoSchedule)> {
        let (pipeline, params) = self.build_with_estimates(size)?;
        let options = AutoScheduleOptions { params, ..options };
        let schedule = Pipeline::new(&pipeline.output).auto_schedule(&Target::host(), &options)?;
        Ok((pipeline, schedule))
    }

    fn name(&self) -> &'static str {
        self.description().name
    }

    /// The number of Funcs the pipeline computes (Halide's stages).
    fn stage_count(&self) -> Result<usize> {
        Ok(pipeline_functions(&self.build()?.output).len())
    }

    /// The region `(mins, extents)` of the output for `inputs` (in declared order), or an
    /// error naming the input that does not fit this app and why: the number of inputs, an
    /// input's element type or shape, a rule of the app's, or a size too small for any
    /// output. The output starts at the first input's mins.
    fn check_inputs(&self, inputs: &[AnyBuffer]) -> Result<(Vec<i64>, Vec<i64>)> {
        let description = self.description();
        let name = description.name;
        let specs = description.inputs;
        if inputs.len() != specs.len() {
            let names: Vec<&str> = specs.iter().map(|s| s.name).collect();
            return Err(Error::Buffer(format!(
                "app {name} takes {} input image(s) ({}), but {} were given",
                specs.len(),
                names.join(", "),
                inputs.len()
            )));
        }
        for (spec, input) in specs.iter().zip(inputs) {
            if input.ty() != spec.ty {
                return Err(Error::Buffer(format!(
                    "input `{}` of app {name} is {} ({}), but the image holds {} values",
                    spec.name,
                    spec.ty,
                    spec.description,
                    input.ty()
                )));
            }
            if !spec.shape.fits(&extents(input)) {
                return Err(Error::Buffer(format!(
                    "input `{}` of app {name} is {} ({}), but the image has extents {:?} (x, y[, c])",
                    spec.name,
                    spec.shape.text("W", "H"),
                    spec.description,
                    extents(input)
                )));
            }
        }
        let all_extents: Vec<Vec<i64>> = inputs.iter().map(extents).collect();
        let sizes = || {
            let sizes: Vec<String> = specs
                .iter()
                .zip(&all_extents)
                .map(|(spec, e)| format!("{} {}", spec.name, extents_text(e)))
                .collect();
            sizes.join(", ")
        };
        if let Some(broken) = description.rules.iter().find(|r| !(r.holds)(inputs)) {
            return Err(Error::Buffer(format!(
                "input `{}` of app {name} does not fit: {} (the inputs are {})",
                broken.input,
                broken.rule,
                sizes()
            )));
        }
        let out = self
            .output_extents(&all_extents)
            .filter(|e| e.iter().all(|&x| x >= 0))
            .ok_or_else(|| {
                let wanted: Vec<String> = specs
                    .iter()
                    .map(|s| format!("{}: {}", s.name, s.description))
                    .collect();
                Error::Buffer(format!(
                    "the inputs ({}) are too small for app {name}, which takes {}",
                    sizes(),
                    wanted.join("; ")
                ))
            })?;
        // The output starts at the first input's x and y mins; its channels (which a
        // two-dimensional input may lack) at 0.
        let first = mins(&inputs[0]);
        let out_mins = (0..out.len())
            .map(|d| first.get(d).copied().unwrap_or(0))
            .collect();
        Ok((out_mins, out))
    }

    /// What is known of schedule `name`, or an error listing the app's schedules. A schedule
    /// file is read and checked here; what it can compute, lowering checks.
    fn schedule_info(&self, name: &str) -> Result<ScheduleInfo> {
        if is_schedule_file(name) {
            read_schedule_file(name)?;
            return Ok(ScheduleInfo {
                name: "schedule file",
                min_output: (0, 0),
            });
        }
        let schedules = self.schedules();
        schedules
            .iter()
            .find(|s| s.name == name)
            .copied()
            .ok_or_else(|| {
                crate::schedule::unknown_schedule(
                    self.name(),
                    schedules.iter().map(|s| s.name),
                    name,
                )
            })
    }

    /// Whether schedule `schedule` can compute an output of `output_extents` (x, y, ...); an
    /// error names the smallest output it computes and the schedules that fit.
    fn check_schedule_fits(&self, schedule: &str, output_extents: &[i64]) -> Result<()> {
        let info = self.schedule_info(schedule)?;
        let &[width, height, ..] = output_extents else {
            return Err(Error::Buffer(format!(
                "an output of app {} has x and y extents, not {output_extents:?}",
                self.name()
            )));
        };
        // An empty output fits every schedule: nothing is computed.
        if width == 0 || height == 0 {
            return Ok(());
        }
        let fits = |s: &ScheduleInfo| width >= s.min_output.0 && height >= s.min_output.1;
        if fits(&info) {
            return Ok(());
        }
        let fitting: Vec<&str> = self
            .schedules()
            .iter()
            .filter(|s| fits(s))
            .map(|s| s.name)
            .collect();
        Err(Error::Buffer(format!(
            "schedule `{schedule}` of app {} computes outputs of at least {} x {} (whole vectors and tiles), but this output is {width} x {height}; use a larger image or a schedule that fits: {}",
            self.name(),
            info.min_output.0,
            info.min_output.1,
            fitting.join(", ")
        )))
    }

    /// The input images and parameters bound for `pipeline` (parameters not in `params` take
    /// their defaults).
    fn inputs(
        &self,
        pipeline: &AppPipeline,
        inputs: &[AnyBuffer],
        params: &[ParamBinding],
    ) -> Inputs {
        let images = pipeline
            .inputs
            .iter()
            .zip(inputs)
            .fold(Inputs::new(), |bound, (param, image)| {
                bound.image(param, image.clone())
            });
        complete_params(self.description().params, params)
            .into_iter()
            .fold(images, Inputs::param)
    }

    /// The pipeline with schedule `schedule`, lowered to its loop nest.
    fn lower(&self, schedule: &str) -> Result<LoweredApp> {
        self.lower_with(schedule, &LowerOptions::default())
    }

    /// `lower` with lowering options of the caller's (to record the IR after every pass, or
    /// to verify every pass's statement).
    fn lower_with(&self, schedule: &str, options: &LowerOptions) -> Result<LoweredApp> {
        let pipeline = self.build_scheduled(schedule)?;
        let lowered = Pipeline::new(&pipeline.output).lower(options)?;
        Ok(LoweredApp { pipeline, lowered })
    }

    /// The output for `inputs`, computed by the pipeline with schedule `schedule`, lowered
    /// and run on the Stmt interpreter. Parameters not in `params` take their defaults.
    fn realize_interp(
        &self,
        schedule: &str,
        inputs: &[AnyBuffer],
        params: &[ParamBinding],
    ) -> Result<AnyBuffer> {
        let (mins, extents) = self.check_inputs(inputs)?;
        self.check_schedule_fits(schedule, &extents)?;
        let lowered = self.lower(schedule)?;
        lowered.run_interp(
            &self.inputs(&lowered.pipeline, inputs, params),
            &mins,
            &extents,
        )
    }

    /// The output for `inputs`, computed by the definition-level evaluator. Parameters not in
    /// `params` take their defaults.
    fn evaluate(&self, inputs: &[AnyBuffer], params: &[ParamBinding]) -> Result<AnyBuffer> {
        let (mins, extents) = self.check_inputs(inputs)?;
        let pipeline = self.build()?;
        let mut evaluator = Evaluator::new();
        for (param, image) in pipeline.inputs.iter().zip(inputs) {
            evaluator = evaluator.with_input(param, image.clone());
        }
        for binding in complete_params(self.description().params, params) {
            evaluator = evaluator.with_param(binding);
        }
        let mut outputs = evaluator.realize(&pipeline.output, &mins, &extents)?;
        Ok(outputs.swap_remove(0))
    }

    /// The app's line in `tessera apps`: its name first, then its stage count, summary,
    /// inputs (name, type, shape), default output size, parameters and schedules.
    fn listing(&self) -> Result<String> {
        let description = self.description();
        let (w, h) = description.default_size;
        let at_default = self.input_extents(w, h);
        let at_larger = self.input_extents(w + 64, h + 64);
        let inputs: Vec<String> = description
            .inputs
            .iter()
            .zip(at_default.iter().zip(&at_larger))
            .map(|(spec, (a, b))| {
                let x = dimension_text("W", a[0] - w, b[0] - (w + 64));
                let y = dimension_text("H", a[1] - h, b[1] - (h + 64));
                format!("{} {} {}", spec.name, spec.ty, spec.shape.text(&x, &y))
            })
            .collect();
        let count = match inputs.len() {
            1 => "1 input".to_string(),
            n => format!("{n} inputs"),
        };
        let params: Vec<String> = description
            .params
            .iter()
            .map(|p| format!("{}={}", p.name, p.default))
            .collect();
        let params = if params.is_empty() {
            String::new()
        } else {
            format!("   params: {}", params.join(", "))
        };
        let schedules: Vec<&str> = self.schedules().iter().map(|s| s.name).collect();
        Ok(format!(
            "{:<10} {:>3} stages   {}   {count}: {}   default output {w} x {h}{params}   schedules: {}",
            description.name,
            self.stage_count()?,
            description.summary,
            inputs.join(", "),
            schedules.join(", ")
        ))
    }
}

impl<D: AppDefinition> App for D {
    fn description(&self) -> &AppDescription {
        AppDefinition::description(self)
    }
    fn build(&self) -> Result<AppPipeline> {
        self.funcs().map(|f| f.pipeline())
    }
    fn schedules(&self) -> Vec<ScheduleInfo> {
        let mut schedules = infos(AppDefinition::schedules(self));
        schedules.extend(AUTO_SCHEDULES.iter().map(|&(name, _)| ScheduleInfo {
            name,
            min_output: (1, 1),
        }));
        schedules
    }
    fn build_scheduled_for(&self, schedule: &str, threads: usize) -> Result<AppPipeline> {
        if let Some(&(_, algorithm)) = AUTO_SCHEDULES.iter().find(|(n, _)| *n == schedule) {
            let defaults = AutoScheduleOptions::default();
            let options = AutoScheduleOptions {
                algorithm,
                threads: if threads > 0 {
                    threads
                } else {
                    defaults.threads
                },
                ..defaults
            };
            let size = self.description().default_size;
            return Ok(self.build_auto(options, size)?.0);
        }
        if is_schedule_file(schedule) {
            let script = read_schedule_file(schedule)?;
            let pipeline = self.build()?;
            script.apply(&pipeline.output)?;
            return Ok(pipeline);
        }
        let schedule = AppDefinition::schedules(self)
            .iter()
            .find(|s| s.name == schedule)
            .ok_or_else(|| {
                let names = App::schedules(self);
                unknown_schedule(self.name(), names.iter().map(|s| s.name), schedule)
            })?;
        let funcs = self.funcs()?;
        (schedule.apply)(&funcs);
        Ok(funcs.pipeline())
    }
    fn input_extents(&self, width: i64, height: i64) -> Vec<Vec<i64>> {
        AppDefinition::input_extents(self, width, height)
    }
    fn output_extents(&self, input_extents: &[Vec<i64>]) -> Option<Vec<i64>> {
        AppDefinition::output_extents(self, input_extents)
    }
    fn default_inputs(&self, width: i64, height: i64) -> Result<Vec<AnyBuffer>> {
        AppDefinition::default_inputs(self, width, height)
    }
    fn reference(&self, inputs: &[AnyBuffer], params: &[ParamBinding]) -> Result<AnyBuffer> {
        self.check_inputs(inputs)?;
        AppDefinition::reference(self, inputs, params)
    }
}

/// The schedules every app has from the automatic scheduler, by name: `auto` (PolyMage-DP's
/// dynamic programming) and `auto-greedy` (PolyMage's greedy grouping). They are made for the
/// app's default size and compute any output size.
pub const AUTO_SCHEDULES: [(&str, Algorithm); 2] =
    [("auto", Algorithm::Dp), ("auto-greedy", Algorithm::Greedy)];

/// `extents` as `W x H` or `W x H x C`.
fn extents_text(extents: &[i64]) -> String {
    let parts: Vec<String> = extents.iter().map(i64::to_string).collect();
    parts.join(" x ")
}

/// An input dimension relative to the output's (`letter`), from the input's excess over the
/// output at two sizes: `W`, `(W+2)`, `(W-4)`, or `W_in` when the excess is not constant.
fn dimension_text(letter: &str, excess: i64, excess_at_larger: i64) -> String {
    match excess {
        _ if excess != excess_at_larger => format!("{letter}_in"),
        0 => letter.to_string(),
        d if d > 0 => format!("({letter}+{d})"),
        d => format!("({letter}{d})"),
    }
}

/// An app's pipeline with a schedule, lowered once, to run on any number of inputs.
pub struct LoweredApp {
    pub pipeline: AppPipeline,
    pub lowered: Lowered,
}

impl LoweredApp {
    /// The output over `[mins, mins + extents)`, computed by the Stmt interpreter.
    pub fn run_interp(&self, inputs: &Inputs, mins: &[i64], extents: &[i64]) -> Result<AnyBuffer> {
        let lowered = &self.lowered;
        let mut realization = run_interp(lowered, &lowered.stmt, inputs, mins, extents, 0)?;
        Ok(realization.buffers.swap_remove(0))
    }
}

/// The given bindings, plus the default of every parameter not given.
pub fn complete_params(specs: &[ParamSpec], given: &[ParamBinding]) -> Vec<ParamBinding> {
    let mut all = given.to_vec();
    for spec in specs {
        if !given.iter().any(|b| b.name.as_str() == spec.name) {
            all.push(spec.default_binding());
        }
    }
    all
}

/// Every Func the output depends on (itself included), each once.
pub fn pipeline_functions(output: &Func) -> Vec<Function> {
    let mut seen: HashSet<Symbol> = HashSet::new();
    let mut order = Vec::new();
    let mut pending = vec![output.function().clone()];
    while let Some(f) = pending.pop() {
        if !seen.insert(f.name()) {
            continue;
        }
        for def in f.definitions() {
            let rdom_exprs = def.rdom.iter().flat_map(|r| {
                let bounds = r
                    .vars
                    .iter()
                    .flat_map(|v| [v.min.clone(), v.extent.clone()]);
                bounds
                    .chain(r.predicates.iter().cloned())
                    .collect::<Vec<_>>()
            });
            for e in def
                .args
                .iter()
                .chain(&def.values)
                .cloned()
                .chain(rdom_exprs)
            {
                visit_exprs(&e, &mut |n| {
                    if let ExprKind::Call {
                        kind: CallKind::Func(link),
                        ..
                    } = n.kind()
                    {
                        pending.push(link.function());
                    }
                    true
                });
            }
        }
        order.push(f);
    }
    order
}

#[cfg(test)]
mod tests {
    use tessera::eval::value::Value;
    use tessera::Target;

    use super::*;
    use crate::description::{InputRule, InputSpec, Shape, TYPICAL_EVAL_BYTES};
    use crate::input_files::input_files;
    use crate::{blur::Blur, histeq::Histeq, schedule};

    /// A small fake app with two inputs of different types and one rule between them:
    /// `output(x, y) = f32(image(x, y)) * gain(x, y)`.
    struct Gain;

    struct GainFuncs {
        image: ImageParam,
        gain: ImageParam,
        output: Func,
    }

    impl AppFuncs for GainFuncs {
        fn pipeline(&self) -> AppPipeline {
            AppPipeline {
                output: self.output.clone(),
                inputs: vec![self.image.clone(), self.gain.clone()],
            }
        }
    }

    const GAIN: AppDescription = AppDescription {
        name: "gain",
        summary: "an image times a gain map",
        inputs: &[
            InputSpec {
                name: "image",
                ty: Type::u8(),
                shape: Shape::Plane,
                description: "u8 grayscale, W × H",
            },
            InputSpec {
                name: "gain",
                ty: Type::f32(),
                shape: Shape::Plane,
                description: "f32 gain per pixel, W × H",
            },
        ],
        rules: &[InputRule {
            input: "gain",
            rule: "gain must have image's extents",
            holds: |inputs| extents(&inputs[1]) == extents(&inputs[0]),
        }],
        output: Shape::Plane,
        params: &[],
        default_size: (64, 48),
        eval_bytes_per_pixel: TYPICAL_EVAL_BYTES,
    };

    const GAIN_SCHEDULES: &[Schedule<GainFuncs>] = &[
        Schedule {
            name: "manual",
            min_output: (8, 1),
            apply: |f| {
                f.output.parallel("y").vectorize("x", 8);
            },
        },
        Schedule {
            name: "root",
            min_output: (8, 1),
            apply: schedule::root,
        },
    ];

    impl AppDefinition for Gain {
        type Funcs = GainFuncs;
        fn description(&self) -> &AppDescription {
            &GAIN
        }
        fn funcs(&self) -> Result<GainFuncs> {
            let image = ImageParam::new(Type::u8(), 2, "image");
            let gain = ImageParam::new(Type::f32(), 2, "gain");
            let (x, y) = (Var::new("x"), Var::new("y"));
            let output = Func::new("output");
            output.define((x, y), cast_to::<f32>(image.at((x, y))) * gain.at((x, y)))?;
            Ok(GainFuncs {
                image,
                gain,
                output,
            })
        }
        fn schedules(&self) -> &[Schedule<GainFuncs>] {
            GAIN_SCHEDULES
        }
        fn reference(&self, inputs: &[AnyBuffer], _params: &[ParamBinding]) -> Result<AnyBuffer> {
            let image: Buffer<u8> = inputs[0].clone().try_into()?;
            let gain: Buffer<f32> = inputs[1].clone().try_into()?;
            Ok(Buffer::from_fn(&image.mins(), &image.extents(), |c| {
                f32::from(image.get(c)) * gain.get(c)
            })
            .into())
        }
    }

    // Callers see an app as `dyn App` (the definition's own methods of the same names are
    // for the app file).
    fn gain() -> &'static dyn App {
        &Gain
    }
    fn blur() -> &'static dyn App {
        &Blur
    }
    fn histeq() -> &'static dyn App {
        &Histeq
    }

    fn message<T: std::fmt::Debug>(result: Result<T>) -> String {
        match result {
            Ok(v) => panic!("accepted what it should refuse: {v:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn a_multi_input_app_is_listed_with_its_inputs() {
        let line = gain().listing().expect("the algorithm builds");
        assert!(line.starts_with("gain "), "{line}");
        assert!(
            line.contains("1 stages   an image times a gain map   2 inputs: image u8 W×H, gain f32 W×H   default output 64 x 48   schedules: manual, root"),
            "{line}"
        );
        let blur = blur().listing().expect("the algorithm builds");
        assert!(blur.contains("1 input: input u16 (W+2)×(H+2)"), "{blur}");
    }

    #[test]
    fn default_inputs_fit_and_input_rules_refuse_what_does_not() {
        let inputs = gain().default_inputs(10, 6).expect("the default inputs");
        assert_eq!(gain().check_inputs(&inputs), Ok((vec![0, 0], vec![10, 6])));
        let narrower: AnyBuffer = Buffer::<f32>::new(&[9, 6]).into();
        let e = message(gain().check_inputs(&[inputs[0].clone(), narrower]));
        assert!(
            e.contains("input `gain` of app gain does not fit: gain must have image's extents (the inputs are image 10 x 6, gain 9 x 6)"),
            "{e}"
        );
        let e = message(gain().check_inputs(&[inputs[1].clone(), inputs[0].clone()]));
        assert!(
            e.contains("input `image` of app gain is u8 (u8 grayscale, W × H), but the image holds f32 values"),
            "{e}"
        );
        let e = message(gain().check_inputs(&inputs[..1]));
        assert!(
            e.contains("app gain takes 2 input image(s) (image, gain), but 1 were given"),
            "{e}"
        );
    }

    #[test]
    fn input_arguments_name_each_input_once() {
        let args = |list: &[&str]| list.iter().map(|a| a.to_string()).collect::<Vec<_>>();
        let given = args(&["gain=g.npy", "image=i.png"]);
        assert_eq!(input_files(&GAIN, &given), Ok(Some(vec!["i.png", "g.npy"])));
        assert_eq!(input_files(&GAIN, &[]), Ok(None));
        let refusal = |list: &[&str]| message(input_files(&GAIN, &args(list)));
        let e = refusal(&["image=i.png", "offset=o.npy"]);
        assert!(
            e.contains(
                "app gain has no input `offset` (--input offset=o.npy); its inputs are image, gain"
            ),
            "{e}"
        );
        let e = refusal(&["image=i.png"]);
        assert!(e.contains("input `gain` of app gain is not given"), "{e}");
        let e = refusal(&["image=a.png", "gain=g.npy", "image=b.png"]);
        assert!(
            e.contains("input `image` of app gain is given twice (files a.png and b.png)"),
            "{e}"
        );
        let e = refusal(&["i.png"]);
        assert!(
            e.contains("app gain takes 2 inputs (image, gain): give each as --input NAME=FILE"),
            "{e}"
        );
        let e = refusal(&["image=", "gain=g.npy"]);
        assert!(e.contains("names no file for input `image`"), "{e}");
        // A one-input app takes a bare FILE or its input's name.
        let blur = blur().description();
        assert_eq!(
            input_files(blur, &args(&["a.npy"])),
            Ok(Some(vec!["a.npy"]))
        );
        assert_eq!(
            input_files(blur, &args(&["input=./b=c.npy"])),
            Ok(Some(vec!["./b=c.npy"]))
        );
        let e = message(input_files(blur, &args(&["a.npy", "input=b.npy"])));
        assert!(
            e.contains("input `input` of app blur is given twice"),
            "{e}"
        );
    }

    #[test]
    fn a_multi_input_app_agrees_on_every_path() {
        let inputs = gain().default_inputs(21, 5).expect("the default inputs");
        let want = gain().reference(&inputs, &[]).expect("the reference");
        assert_eq!(gain().evaluate(&inputs, &[]), Ok(want.clone()));
        let (mins, extents) = gain().check_inputs(&inputs).expect("the inputs fit");
        for schedule in ["manual", "root"] {
            assert_eq!(
                gain().realize_interp(schedule, &inputs, &[]),
                Ok(want.clone()),
                "{schedule} on the interpreter"
            );
            let pipeline = gain().build_scheduled(schedule).expect("builds");
            let compiled = Pipeline::new(&pipeline.output)
                .compile_jit(&Target::host())
                .expect("compiles");
            let bound = gain().inputs(&pipeline, &inputs, &[]);
            let mut jitted = compiled.realize(&bound, &mins, &extents).expect("runs");
            assert_eq!(jitted.swap_remove(0), want, "{schedule} on the JIT");
        }
    }

    #[test]
    fn check_inputs_gives_the_output_region_or_says_what_is_wrong() {
        let input: AnyBuffer = Buffer::<u16>::with_mins(&[2, -1], &[10, 4]).into();
        assert_eq!(blur().check_inputs(&[input]), Ok((vec![2, -1], vec![8, 2])));
        let e = message(blur().check_inputs(&[Buffer::<u8>::new(&[10, 4]).into()]));
        assert!(
            e.contains("input `input` of app blur is u16 (u16 grayscale, (W+2) × (H+2) for a W × H output), but the image holds u8 values"),
            "{e}"
        );
        let e = message(blur().check_inputs(&[Buffer::<u16>::new(&[10, 4, 3]).into()]));
        assert!(e.contains("but the image has extents [10, 4, 3]"), "{e}");
        let e = message(blur().check_inputs(&[Buffer::<u16>::new(&[1, 9]).into()]));
        assert!(
            e.contains("the inputs (input 1 x 9) are too small for app blur"),
            "{e}"
        );
        // Inputs that give empty outputs fit.
        assert_eq!(
            blur().check_inputs(&[Buffer::<u16>::new(&[2, 9]).into()]),
            Ok((vec![0, 0], vec![0, 7]))
        );
        assert_eq!(
            histeq().check_inputs(&[Buffer::<u8>::new(&[0, 3]).into()]),
            Ok((vec![0, 0], vec![0, 3]))
        );
        assert_eq!(
            histeq().check_inputs(&[Buffer::<u8>::new(&[1, 1]).into()]),
            Ok((vec![0, 0], vec![1, 1]))
        );
        // A two-dimensional input of a three-channel output: the channels start at 0.
        let raw: AnyBuffer = Buffer::<u16>::with_mins(&[4, 2], &[64, 56]).into();
        let camera_pipe = crate::find("camera_pipe").expect("an app");
        assert_eq!(
            camera_pipe.check_inputs(&[raw]),
            Ok((vec![4, 2, 0], vec![32, 32, 3]))
        );
    }

    #[test]
    fn every_app_reads_its_declared_inputs() {
        for app in crate::apps() {
            let pipeline = app.build().expect("the algorithm builds");
            let read: Vec<(String, Type, usize)> = pipeline
                .inputs
                .iter()
                .map(|i| (i.name().to_string(), i.ty(), i.dimensions()))
                .collect();
            let declared: Vec<(String, Type, usize)> = app
                .description()
                .inputs
                .iter()
                .map(|i| (i.name.to_string(), i.ty, i.shape.dimensions()))
                .collect();
            assert_eq!(read, declared, "{}", app.name());
        }
    }

    #[test]
    fn automatic_schedules_are_made_for_the_threads_asked_for() {
        let lowered = |pipeline: AppPipeline| -> String {
            let lowered = Pipeline::new(&pipeline.output)
                .lower(&LowerOptions::default())
                .expect("lowers");
            lowered.stmt.to_string()
        };
        let size = blur().description().default_size;
        let asked = |threads| lowered(blur().build_scheduled_for("auto", threads).expect("builds"));
        for threads in [1, 64] {
            let options = AutoScheduleOptions {
                threads,
                ..AutoScheduleOptions::default()
            };
            let made = lowered(blur().build_auto(options, size).expect("schedules").0);
            assert_eq!(asked(threads), made, "auto for {threads} threads");
        }
        // Sixty-four threads need more parallel tasks than one: the schedules differ.
        assert_ne!(asked(1), asked(64));
    }

    #[test]
    fn default_parameters_fill_in_what_is_not_given() {
        let specs = vec![
            ParamSpec {
                name: "a",
                ty: Type::i32(),
                default: Value::Int(1),
                description: "",
            },
            ParamSpec {
                name: "b",
                ty: Type::f32(),
                default: Value::F32(0.5),
                description: "",
            },
        ];
        let given = ParamBinding {
            name: Symbol::new("b"),
            ty: Type::f32(),
            value: Value::F32(2.0),
            origin: None,
        };
        let all = complete_params(&specs, &[given]);
        let values: Vec<(&str, Value)> = all.iter().map(|b| (b.name.as_str(), b.value)).collect();
        assert_eq!(values, vec![("b", Value::F32(2.0)), ("a", Value::Int(1))]);
    }
}
