//! Parsing `NAME=VALUE` parameter assignments (as `tessera run --param` takes them) into
//! bindings of an app's runtime parameters, checked against the parameter's name and type;
//! reading a parameter's value back from bindings (as the plain-Rust references do); and
//! writing a value as an assignment would take it back.

use tessera::eval::value::Value;
use tessera::lang::param::ParamBinding;
use tessera::lang::scalar::Scalar;
use tessera::{Error, Result};
use tessera::{Symbol, TypeCode};

use crate::description::ParamSpec;

/// The binding `assignment` (`NAME=VALUE`) describes, for an app with parameters `specs`.
pub fn parse_assignment(app: &str, specs: &[ParamSpec], assignment: &str) -> Result<ParamBinding> {
    let (name, text) = assignment.split_once('=').ok_or_else(|| {
        Error::Definition(format!(
            "parameter assignment `{assignment}` has no `=`; write NAME=VALUE"
        ))
    })?;
    let (name, text) = (name.trim(), text.trim());
    let spec = specs.iter().find(|s| s.name == name).ok_or_else(|| {
        let known = if specs.is_empty() {
            "it has no parameters".to_string()
        } else {
            let names: Vec<&str> = specs.iter().map(|s| s.name).collect();
            format!("its parameters are {}", names.join(", "))
        };
        Error::Definition(format!("app {app} has no parameter `{name}`; {known}"))
    })?;
    let value = parse_value(spec, text).ok_or_else(|| {
        Error::Type(format!(
            "parameter {name} of app {app} is {}, and `{text}` is not a valid {} value",
            spec.ty, spec.ty
        ))
    })?;
    Ok(ParamBinding {
        name: Symbol::new(spec.name),
        ty: spec.ty,
        value,
        origin: None,
    })
}

/// The value of parameter `name` of app `app` (whose parameters are `specs`): its binding in
/// `given`, or its default. A binding of the wrong type is an error.
pub fn param_value<T: Scalar>(
    app: &str,
    specs: &[ParamSpec],
    given: &[ParamBinding],
    name: &str,
) -> Result<T> {
    let spec = specs
        .iter()
        .find(|s| s.name == name && s.ty == T::TYPE)
        .unwrap_or_else(|| {
            panic!(
                "internal error: app {app} reads a {} parameter {name} it does not declare",
                T::TYPE
            )
        });
    match given.iter().find(|b| b.name.as_str() == name) {
        None => Ok(T::from_value(spec.default)),
        Some(b) if b.ty == spec.ty => Ok(T::from_value(b.value)),
        Some(b) => Err(Error::Type(format!(
            "parameter {name} of app {app} is {}, but the value given is {}",
            spec.ty, b.ty
        ))),
    }
}

/// `text` as a value of the parameter's type, if it is one (integers must be in range).
fn parse_value(spec: &ParamSpec, text: &str) -> Option<Value> {
    let ty = spec.ty;
    match ty.code {
        TypeCode::Bool => text.parse::<bool>().ok().map(Value::Bool),
        TypeCode::Int => {
            let v: i64 = text.parse().ok()?;
            ty.can_represent_int(v as i128).then_some(Value::Int(v))
        }
        TypeCode::UInt => {
            let v: u64 = text.parse().ok()?;
            ty.can_represent_int(v as i128).then_some(Value::UInt(v))
        }
        TypeCode::Float if ty.bits == 32 => text.parse::<f32>().ok().map(Value::F32),
        TypeCode::Float => text.parse::<f64>().ok().map(Value::F64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tessera::Type;

    fn specs() -> Vec<ParamSpec> {
        vec![
            ParamSpec {
                name: "levels",
                ty: Type::i32(),
                default: Value::Int(8),
                description: "pyramid levels",
            },
            ParamSpec {
                name: "alpha",
                ty: Type::f32(),
                default: Value::F32(1.0),
                description: "detail",
            },
            ParamSpec {
                name: "shift",
                ty: Type::u8(),
                default: Value::UInt(0),
                description: "a small unsigned value",
            },
        ]
    }

    #[test]
    fn parses_values_of_each_type() {
        let s = specs();
        let b = parse_assignment("app", &s, "levels=5").expect("valid");
        assert_eq!(
            (b.name.as_str(), b.ty, b.value),
            ("levels", Type::i32(), Value::Int(5))
        );
        let b = parse_assignment("app", &s, "alpha = 0.25").expect("valid");
        assert_eq!(b.value, Value::F32(0.25));
        let b = parse_assignment("app", &s, "shift=255").expect("valid");
        assert_eq!(b.value, Value::UInt(255));
    }

    #[test]
    fn values_come_from_bindings_or_defaults() {
        let s = specs();
        let given = [parse_assignment("app", &s, "alpha=0.5").expect("valid")];
        assert_eq!(param_value::<f32>("app", &s, &given, "alpha"), Ok(0.5));
        assert_eq!(param_value::<i32>("app", &s, &given, "levels"), Ok(8));
        let wrong = [ParamBinding {
            name: Symbol::new("levels"),
            ty: Type::f32(),
            value: Value::F32(2.0),
            origin: None,
        }];
        let e = param_value::<i32>("app", &s, &wrong, "levels")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            e.contains("levels of app app is i32, but the value given is f32"),
            "{e}"
        );
    }

    #[test]
    fn rejects_unknown_names_bad_values_and_missing_equals() {
        let s = specs();
        let msg = |a: &str| {
            parse_assignment("app", &s, a)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        assert!(
            msg("beta=1").contains("no parameter `beta`; its parameters are levels, alpha, shift")
        );
        assert!(msg("levels=1.5").contains("not a valid i32 value"));
        assert!(msg("shift=256").contains("not a valid u8 value"));
        assert!(msg("levels").contains("has no `=`"));
        let none = parse_assignment("blur", &[], "x=1")
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            none.as_deref(),
            Some("app blur has no parameter `x`; it has no parameters")
        );
    }
}
