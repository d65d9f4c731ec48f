//! The `App` trait every benchmark pipeline implements, and what is shared by all of them:
//! checking an input against the app's description (and against a schedule's minimum output),
//! counting stages, evaluating the pipeline with the definition-level evaluator, and running a
//! scheduled pipeline, lowered, on the Stmt interpreter.

use std::collections::HashSet;

use tessera::eval::realize::Evaluator;
use tessera::eval::value::Value;
use tessera::ir::visit::visit_exprs;
use tessera::ir::{CallKind, ExprKind, Symbol};
use tessera::lang::function::Function;
use tessera::lang::param::ParamBinding;
use tessera::lower::{LowerOptions, Lowered};
use tessera::pipeline::{run_interp, Inputs, Pipeline};
use tessera::prelude::*;

use crate::schedule::{unknown_schedule, ScheduleInfo};

/// A runtime scalar parameter of an app (`--param NAME=VALUE`).
#[derive(Clone, Debug, PartialEq)]
pub struct ParamSpec {
    pub name: &'static str,
    pub ty: Type,
    pub default: Value,
    pub description: &'static str,
}

impl ParamSpec {
    /// The binding of this parameter to its default value.
    pub fn default_binding(&self) -> ParamBinding {
        ParamBinding {
            name: Symbol::new(self.name),
            ty: self.ty,
            value: self.default,
            origin: None,
        }
    }
}

/// An app's algorithm, ready to evaluate: the Func computing the output and the input image it
/// reads. Runtime parameters are `Param`s named as in `App::params`.
#[derive(Clone, Debug)]
pub struct AppPipeline {
    pub output: Func,
    pub input: ImageParam,
}

/// One benchmark pipeline. Sizes are output sizes: an app computes a `width × height` output
/// (times channels) from an input of `input_extents(width, height)`.
pub trait App: Send + Sync {
    fn name(&self) -> &'static str;
    /// The input image in words, e.g. "u16 grayscale, (W+2) x (H+2)".
    fn input_description(&self) -> &'static str;
    fn input_type(&self) -> Type;
    /// The number of channels (a third dimension), or `None` for a two-dimensional image.
    fn input_channels(&self) -> Option<i64>;
    /// The output size `(width, height)` the benchmarks use.
    fn default_size(&self) -> (i64, i64);
    /// Runtime parameters, with their default values.
    fn params(&self) -> Vec<ParamSpec> {
        Vec::new()
    }
    /// The input extents an output of `width × height` needs.
    fn input_extents(&self, width: i64, height: i64) -> Vec<i64>;
    /// The output extents for an input of `input_extents` (same dimensionality as the
    /// input), or `None` when the input is too small to produce any output. An output may
    /// be empty (an empty input, or blur's 2 x 2, gives a 0 x 0 output).
    fn output_extents(&self, input_extents: &[i64]) -> Option<Vec<i64>>;
    /// The algorithm, written once and shared by every schedule, with no schedule applied.
    fn build(&self) -> Result<AppPipeline>;
    /// The app's named schedules, `manual` (the expert schedule) first.
    fn schedules(&self) -> Vec<ScheduleInfo>;
    /// The algorithm, freshly built, with schedule `schedule` applied; an unknown name is an
    /// error listing the schedules.
    fn build_scheduled(&self, schedule: &str) -> Result<AppPipeline>;
    /// A deterministic synthetic input (smooth regions, edges and noise) for an output of
    /// `width × height`; an error naming the buffer's size when it cannot be allocated.
    fn default_input(&self, width: i64, height: i64) -> Result<AnyBuffer>;
    /// The output computed by plain Rust loops, independently of Tessera, for an input that
    /// `check_input` accepts.
    fn reference(&self, input: &AnyBuffer, params: &[ParamBinding]) -> Result<AnyBuffer>;

    /// About how many bytes `evaluate` (the definition-level evaluator, which memoizes every
    /// Func's value at every point) takes per output pixel, measured at 256 x 256: 0.4 to
    /// 1.9 KB for the apps that do not override it. Callers refuse outputs whose estimate
    /// exceeds the memory they allow, before evaluating.
    fn eval_bytes_per_pixel(&self) -> i64 {
        2 << 10
    }

    /// The number of Funcs the pipeline computes (Halide's stages).
    fn stage_count(&self) -> Result<usize> {
        Ok(pipeline_functions(&self.build()?.output).len())
    }

    /// The region `(mins, extents)` of the output for `input`, or an error saying why the
    /// input does not fit this app (element type, dimensions or size). The output starts at
    /// the input's mins.
    fn check_input(&self, input: &AnyBuffer) -> Result<(Vec<i64>, Vec<i64>)> {
        let name = self.name();
        let (ty, dims) = (input.ty(), input.dims());
        if ty != self.input_type() {
            return Err(Error::Buffer(format!(
                "app {name} takes {} input but the input holds {ty} values ({})",
                self.input_type(),
                self.input_description()
            )));
        }
        let wanted_dims = 2 + usize::from(self.input_channels().is_some());
        let channels_ok = self
            .input_channels()
            .is_none_or(|c| dims.get(2).map(|d| d.extent) == Some(c));
        if dims.len() != wanted_dims || !channels_ok {
            let extents: Vec<i64> = dims.iter().map(|d| d.extent).collect();
            return Err(Error::Buffer(format!(
                "app {name} takes a {} input but the input has extents {extents:?} (x, y[, c])",
                self.input_description()
            )));
        }
        let extents: Vec<i64> = dims.iter().map(|d| d.extent).collect();
        let out = self
            .output_extents(&extents)
            .filter(|e| e.iter().all(|&x| x >= 0))
            .ok_or_else(|| {
                Error::Buffer(format!(
                    "the input ({} x {}) is too small for app {name}, which takes a {} input",
                    extents[0],
                    extents[1],
                    self.input_description()
                ))
            })?;
        Ok((dims.iter().map(|d| d.min).collect(), out))
    }

    /// What is known of schedule `name`, or an error listing the app's schedules.
    fn schedule_info(&self, name: &str) -> Result<ScheduleInfo> {
        let schedules = self.schedules();
        schedules
            .iter()
            .find(|s| s.name == name)
            .copied()
            .ok_or_else(|| unknown_schedule(self.name(), schedules.iter().map(|s| s.name), name))
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

    /// The input image and parameters bound for `pipeline` (parameters not in `params` take
    /// their defaults).
    fn inputs(&self, pipeline: &AppPipeline, input: &AnyBuffer, params: &[ParamBinding]) -> Inputs {
        complete_params(&self.params(), params).into_iter().fold(
            Inputs::new().image(&pipeline.input, input.clone()),
            Inputs::param,
        )
    }

    /// The pipeline with schedule `schedule`, lowered to its loop nest.
    fn lower(&self, schedule: &str) -> Result<LoweredApp> {
        let pipeline = self.build_scheduled(schedule)?;
        let lowered = Pipeline::new(&pipeline.output).lower(&LowerOptions::default())?;
        Ok(LoweredApp { pipeline, lowered })
    }

    /// The output for `input`, computed by the pipeline with schedule `schedule`, lowered and
    /// run on the Stmt interpreter. Parameters not in `params` take their defaults.
    fn realize_interp(
        &self,
        schedule: &str,
        input: &AnyBuffer,
        params: &[ParamBinding],
    ) -> Result<AnyBuffer> {
        let (mins, extents) = self.check_input(input)?;
        self.check_schedule_fits(schedule, &extents)?;
        let lowered = self.lower(schedule)?;
        lowered.run_interp(
            &self.inputs(&lowered.pipeline, input, params),
            &mins,
            &extents,
        )
    }

    /// The output for `input`, computed by the definition-level evaluator. Parameters not in
    /// `params` take their defaults.
    fn evaluate(&self, input: &AnyBuffer, params: &[ParamBinding]) -> Result<AnyBuffer> {
        let (mins, extents) = self.check_input(input)?;
        let pipeline = self.build()?;
        let mut evaluator = Evaluator::new().with_input(&pipeline.input, input.clone());
        for binding in complete_params(&self.params(), params) {
            evaluator = evaluator.with_param(binding);
        }
        let mut outputs = evaluator.realize(&pipeline.output, &mins, &extents)?;
        Ok(outputs.swap_remove(0))
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
    use super::*;
    use crate::{blur::Blur, histeq::Histeq};

    fn rejection(app: &dyn App, input: AnyBuffer) -> String {
        match app.check_input(&input) {
            Ok(region) => panic!(
                "{} accepted an input it should refuse: {region:?}",
                app.name()
            ),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn check_input_gives_the_output_region_or_says_what_is_wrong() {
        let input: AnyBuffer = Buffer::<u16>::with_mins(&[2, -1], &[10, 4]).into();
        assert_eq!(Blur.check_input(&input), Ok((vec![2, -1], vec![8, 2])));
        let e = rejection(&Blur, Buffer::<u8>::new(&[10, 4]).into());
        assert!(
            e.contains("app blur takes u16 input but the input holds u8 values"),
            "{e}"
        );
        let e = rejection(&Blur, Buffer::<u16>::new(&[10, 4, 3]).into());
        assert!(e.contains("the input has extents [10, 4, 3]"), "{e}");
        let e = rejection(&Blur, Buffer::<u16>::new(&[1, 9]).into());
        assert!(
            e.contains("the input (1 x 9) is too small for app blur"),
            "{e}"
        );
        // Inputs that give empty outputs fit.
        assert_eq!(
            Blur.check_input(&Buffer::<u16>::new(&[2, 9]).into()),
            Ok((vec![0, 0], vec![0, 7]))
        );
        assert_eq!(
            Histeq.check_input(&Buffer::<u8>::new(&[0, 3]).into()),
            Ok((vec![0, 0], vec![0, 3]))
        );
        assert_eq!(
            Histeq.check_input(&Buffer::<u8>::new(&[1, 1]).into()),
            Ok((vec![0, 0], vec![1, 1]))
        );
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
