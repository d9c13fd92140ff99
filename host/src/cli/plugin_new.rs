//! `warden plugin new NAME [--lang rust|js|python] [--template tools|http]`: a plugin project
//! that builds as it is, with a manifest to try it.
//!
//! A Rust crate depends on the `warden-sdk` sources this `warden` was built from (or `--sdk`),
//! and gets a copy of Warden's own `Cargo.lock`, so it builds with the dependency versions
//! Warden is tested with, offline when those crates are already downloaded. A JavaScript or
//! Python project is the template its SDK ships (`sdk/js/template`, `sdk/python/template`),
//! pointing at that SDK; the SDK's package pins the toolchain. `--sdk` may also name the
//! packed SDK itself (the `npm pack` tarball, the wheel): the project then depends on that
//! file, and its template is the copy built into this binary. `--template http` lays the
//! files of the web-API plugin (`sdk/js/template-http`, `sdk/python/template-http`,
//! `scaffold/http/`) over that template.

use anyhow::{Context, bail};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The SDK next to the host crate this binary was built from.
const BUILT_FROM_SDK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../sdk");

/// The language a new plugin is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Lang {
    Rust,
    /// JavaScript (ES modules, TypeScript declarations), built with componentize-js.
    Js,
    /// Python, built with componentize-py.
    Python,
}

impl Lang {
    /// The SDK's directory under `sdk/`, and the file that names it.
    fn sdk(self) -> (&'static str, &'static str) {
        match self {
            Self::Rust => ("", "Cargo.toml"),
            Self::Js => ("js", "package.json"),
            Self::Python => ("python", "pyproject.toml"),
        }
    }

    fn label(self) -> &'static str {
        match self {
            Self::Rust => "Rust",
            Self::Js => "JavaScript",
            Self::Python => "Python",
        }
    }

    /// What to run next in the new project's directory, after `cd`.
    fn next_steps(self) -> &'static [&'static str] {
        match self {
            Self::Rust => &[
                "rustup target add wasm32-wasip2   # once",
                "cargo build --target wasm32-wasip2 --release",
            ],
            Self::Js => &["npm install", "npm run build"],
            Self::Python => &[
                "python3 -m venv .venv && .venv/bin/pip install -e .   # once",
                ".venv/bin/python -m warden_sdk build",
            ],
        }
    }
}

/// What a new plugin starts as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Template {
    /// Two tools: `hello`, and `fetch_status` (a GET through the host's `capture` grant).
    Tools,
    /// `create_issue`: POSTs JSON to a web API over standard `wasi:http` (`grants.http`), with
    /// the API's token held by the host (`[credentials.api]`), never by the plugin.
    Http,
}

impl Template {
    /// The tools the template's plugin serves, for the closing message.
    fn tools(self) -> &'static str {
        match self {
            Self::Tools => "the tools hello and fetch_status",
            Self::Http => "the tool create_issue",
        }
    }

    /// A first call to try.
    fn try_call(self) -> &'static str {
        match self {
            Self::Tools => "warden call -m warden.toml hello '{\"name\": \"Ada\"}'",
            Self::Http => {
                "API_TOKEN=... warden call -m warden.toml create_issue '{\"title\": \"It broke\"}'"
            }
        }
    }

    /// The directory beside a JavaScript or Python SDK's `template/` whose files replace or
    /// join it.
    fn overlay(self) -> Option<&'static str> {
        match self {
            Self::Tools => None,
            Self::Http => Some("template-http"),
        }
    }
}

const LOCK: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.lock"));

macro_rules! template {
    ($lang:literal, $dir:literal, $($file:literal),+ $(,)?) => {
        &[$(($file, include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../sdk/", $lang, "/", $dir, "/", $file)))),+]
    };
}

/// The templates of `sdk/js` and `sdk/python` as this binary was built, for an SDK given as
/// its package file (whose template cannot be read without unpacking it).
const JS_TEMPLATE: &[(&str, &str)] = template!(
    "js",
    "template",
    ".gitignore.in",
    "README.md.in",
    "package.json.in",
    "src/plugin.js.in",
    "test/plugin.test.js.in",
    "warden.toml.in",
);
const PYTHON_TEMPLATE: &[(&str, &str)] = template!(
    "python",
    "template",
    ".gitignore.in",
    "README.md.in",
    "app.py.in",
    "pyproject.toml.in",
    "warden.toml.in",
);
const JS_HTTP_TEMPLATE: &[(&str, &str)] = template!(
    "js",
    "template-http",
    "README.md.in",
    "package.json.in",
    "src/plugin.js.in",
    "test/plugin.test.js.in",
    "warden.toml.in",
);
const PYTHON_HTTP_TEMPLATE: &[(&str, &str)] = template!(
    "python",
    "template-http",
    "README.md.in",
    "app.py.in",
    "pyproject.toml.in",
    "warden.toml.in",
);

const FILES: &[(&str, &str)] = &[
    ("Cargo.toml", include_str!("scaffold/Cargo.toml.in")),
    ("src/lib.rs", include_str!("scaffold/lib.rs.in")),
    ("warden.toml", include_str!("scaffold/warden.toml.in")),
    ("README.md", include_str!("scaffold/README.md.in")),
    (".gitignore", include_str!("scaffold/gitignore.in")),
    ("Cargo.lock", LOCK),
];

/// `--template http` for Rust: laid over [`FILES`].
const HTTP_FILES: &[(&str, &str)] = &[
    ("src/lib.rs", include_str!("scaffold/http/lib.rs.in")),
    ("warden.toml", include_str!("scaffold/http/warden.toml.in")),
    ("README.md", include_str!("scaffold/http/README.md.in")),
];

/// A crate name that is also a valid `[[plugin]] name`.
fn valid_name(name: &str) -> bool {
    name.len() <= 32
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

/// Where the new project takes its SDK from.
enum Sdk {
    /// An SDK directory: a checkout's, or an unpacked package (its own template is used).
    Dir(PathBuf),
    /// A packed SDK: the `npm pack` tarball or the wheel (the built-in template is used).
    Package(PathBuf),
}

impl Sdk {
    fn path(&self) -> &Path {
        match self {
            Self::Dir(p) | Self::Package(p) => p,
        }
    }
}

/// The SDK of `lang`: `--sdk` (a directory or a package file), or the directory this binary
/// was built from.
fn sdk_source(lang: Lang, given: Option<&Path>) -> anyhow::Result<Sdk> {
    if let Some(file) = given.filter(|p| p.is_file()) {
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let fits = match lang {
            Lang::Js => name.ends_with(".tgz") || name.ends_with(".tar.gz"),
            Lang::Python => name.ends_with(".whl"),
            Lang::Rust => false,
        };
        if !fits {
            bail!(
                "{} is not a packed {} SDK; --sdk takes {}",
                file.display(),
                lang.label(),
                match lang {
                    Lang::Js => "the directory of the SDK, or the .tgz `npm pack` makes of it",
                    Lang::Python => "the directory of the SDK, or its wheel (.whl)",
                    Lang::Rust =>
                        "a directory: unpack the .crate that `cargo package` makes (tar xzf) and pass that directory",
                }
            );
        }
        let file = file
            .canonicalize()
            .with_context(|| format!("cannot resolve {}", file.display()))?;
        return Ok(Sdk::Package(file));
    }
    sdk_dir(lang, given).map(Sdk::Dir)
}

/// The SDK directory of `lang`: `--sdk`, or the one this binary was built from.
fn sdk_dir(lang: Lang, given: Option<&Path>) -> anyhow::Result<PathBuf> {
    let (sub, marker) = lang.sdk();
    let dir = given.map_or_else(|| Path::new(BUILT_FROM_SDK).join(sub), Path::to_path_buf);
    let manifest = std::fs::read_to_string(dir.join(marker)).unwrap_or_default();
    let is_sdk = match lang {
        Lang::Rust => manifest.contains("name = \"warden-sdk\""),
        Lang::Js | Lang::Python => !manifest.is_empty() && dir.join("template").is_dir(),
    };
    let place = if sub.is_empty() {
        "sdk/".to_string()
    } else {
        format!("sdk/{sub}/")
    };
    if !is_sdk {
        match given {
            Some(_) => bail!(
                "{} is not the Warden {} SDK (no {marker} beside a template/ directory); pass --sdk the {place} directory of a Warden checkout",
                dir.display(),
                lang.label()
            ),
            None => bail!(
                "the Warden {} SDK this warden was built from is gone ({}); pass --sdk the {place} directory of a Warden checkout",
                lang.label(),
                dir.display()
            ),
        }
    }
    dir.canonicalize()
        .with_context(|| format!("cannot resolve {}", dir.display()))
}

pub fn run(
    name: &str,
    lang: Lang,
    template: Template,
    path: Option<&Path>,
    sdk: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    if !valid_name(name) {
        bail!(
            "plugin name \"{name}\" must be 1-32 characters of a-z, 0-9, '-' and '_', starting with a letter: it names the project, the component and the [[plugin]]"
        );
    }
    let sdk = sdk_source(lang, sdk)?;
    let dir = path.map_or_else(|| PathBuf::from(name), Path::to_path_buf);
    if std::fs::read_dir(&dir).is_ok_and(|mut entries| entries.next().is_some()) {
        bail!(
            "{} exists and is not empty; choose another directory with --path",
            dir.display()
        );
    }
    let wasm = name.replace('-', "_");
    let fill = |template: &str, sdk_value: &str| {
        template
            .replace("{{name}}", name)
            .replace("{{plugin}}", name)
            .replace("{{wasm}}", &wasm)
            .replace("{{sdk}}", sdk_value)
    };
    let written = match lang {
        Lang::Rust => {
            let sdk_value = toml::Value::String(sdk.path().display().to_string()).to_string();
            let mut files: Vec<(PathBuf, String)> = FILES
                .iter()
                .map(|(file, text)| (PathBuf::from(file), text.to_string()))
                .collect();
            if template == Template::Http {
                lay_over(
                    &mut files,
                    HTTP_FILES
                        .iter()
                        .map(|(file, text)| (PathBuf::from(file), text.to_string()))
                        .collect(),
                );
            }
            let files: Vec<(PathBuf, String)> = files
                .into_iter()
                .map(|(file, text)| (file, fill(&text, &sdk_value)))
                .collect();
            write_all(&dir, &files)?;
            "Cargo.toml, src/lib.rs, warden.toml, README.md".to_string()
        }
        Lang::Js | Lang::Python => {
            let sdk_value = sdk.path().display().to_string();
            let mut files = Vec::new();
            match &sdk {
                Sdk::Dir(dir) => {
                    read_templates(&dir.join("template"), Path::new(""), &mut files)?;
                    if let Some(overlay) = template.overlay() {
                        let mut over = Vec::new();
                        read_templates(&dir.join(overlay), Path::new(""), &mut over)?;
                        lay_over(&mut files, over);
                    }
                }
                Sdk::Package(_) => {
                    let (base, http) = if lang == Lang::Js {
                        (JS_TEMPLATE, JS_HTTP_TEMPLATE)
                    } else {
                        (PYTHON_TEMPLATE, PYTHON_HTTP_TEMPLATE)
                    };
                    files.extend(built_in(base));
                    if template == Template::Http {
                        lay_over(&mut files, built_in(http).collect());
                    }
                }
            }
            let files: Vec<(PathBuf, String)> = files
                .into_iter()
                .map(|(file, template)| (file, fill(&template, &sdk_value)))
                .collect();
            write_all(&dir, &files)?;
            let mut names: Vec<String> = files
                .iter()
                .filter(|(f, _)| f.components().count() == 1)
                .map(|(f, _)| f.display().to_string())
                .collect();
            names.sort();
            names.join(", ")
        }
    };
    println!(
        "created {} ({written}) with {}",
        dir.display(),
        template.tools()
    );
    println!("next:");
    println!("  cd {}", dir.display());
    for step in lang.next_steps() {
        println!("  {step}");
    }
    println!("  warden check -m warden.toml");
    println!("  {}", template.try_call());
    Ok(ExitCode::SUCCESS)
}

/// The files of a template built into this binary, named as they are written.
fn built_in(
    files: &'static [(&'static str, &'static str)],
) -> impl Iterator<Item = (PathBuf, String)> {
    files.iter().map(|(file, text)| {
        (
            PathBuf::from(file.strip_suffix(".in").unwrap_or(file)),
            text.to_string(),
        )
    })
}

/// `over` laid on `files`: a file of the same path is replaced, a new one added.
fn lay_over(files: &mut Vec<(PathBuf, String)>, over: Vec<(PathBuf, String)>) {
    for (path, text) in over {
        match files.iter_mut().find(|(p, _)| *p == path) {
            Some(slot) => slot.1 = text,
            None => files.push((path, text)),
        }
    }
}

/// Never copied from a template directory.
const SKIPPED: &[&str] = &["node_modules", "__pycache__", ".venv", "dist", "target"];

/// Write `files` (paths relative to `dir`), creating directories as needed.
fn write_all(dir: &Path, files: &[(PathBuf, String)]) -> anyhow::Result<()> {
    for (file, text) in files {
        let target = dir.join(file);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::write(&target, text)
            .with_context(|| format!("cannot write {}", target.display()))?;
    }
    Ok(())
}

/// Every file under `root/rel`, as (path relative to `root` with a trailing `.in` dropped,
/// text). Templates end in `.in` so that tools do not take them for a real project.
fn read_templates(root: &Path, rel: &Path, out: &mut Vec<(PathBuf, String)>) -> anyhow::Result<()> {
    let here = root.join(rel);
    let mut entries: Vec<_> = std::fs::read_dir(&here)
        .with_context(|| format!("cannot read the template directory {}", here.display()))?
        .collect::<Result<_, _>>()
        .with_context(|| format!("cannot read the template directory {}", here.display()))?;
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let name = entry.file_name();
        // What building or installing in the SDK's own tree may leave behind.
        if SKIPPED.iter().any(|s| name == *s) {
            continue;
        }
        let path = rel.join(&name);
        let kind = entry
            .file_type()
            .with_context(|| format!("cannot read {}", root.join(&path).display()))?;
        if kind.is_dir() {
            read_templates(root, &path, out)?;
        } else {
            let text = std::fs::read_to_string(root.join(&path))
                .with_context(|| format!("cannot read {}", root.join(&path).display()))?;
            let name = name.to_string_lossy();
            let target = match name.strip_suffix(".in") {
                Some(stem) => rel.join(stem),
                None => path,
            };
            out.push((target, text));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{
        JS_HTTP_TEMPLATE, JS_TEMPLATE, PYTHON_HTTP_TEMPLATE, PYTHON_TEMPLATE, lay_over,
        read_templates, valid_name,
    };
    use std::path::{Path, PathBuf};

    #[test]
    fn the_built_in_templates_are_the_sdks_whole_templates() {
        for (lang, dir, built_in) in [
            ("js", "template", JS_TEMPLATE),
            ("python", "template", PYTHON_TEMPLATE),
            ("js", "template-http", JS_HTTP_TEMPLATE),
            ("python", "template-http", PYTHON_HTTP_TEMPLATE),
        ] {
            let root = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../sdk")
                .join(lang)
                .join(dir);
            let mut on_disk = Vec::new();
            read_templates(&root, Path::new(""), &mut on_disk).expect("read");
            on_disk.sort();
            let mut embedded: Vec<(PathBuf, String)> = built_in
                .iter()
                .map(|(f, t)| {
                    (
                        PathBuf::from(f.strip_suffix(".in").unwrap_or(f)),
                        t.to_string(),
                    )
                })
                .collect();
            embedded.sort();
            assert_eq!(
                on_disk, embedded,
                "add new files of sdk/{lang}/{dir} to the list in plugin_new.rs"
            );
        }
    }

    #[test]
    fn templates_drop_their_in_suffix_and_skip_build_output() {
        let root = tempfile::tempdir().expect("a temporary directory");
        let t = root.path();
        for (file, text) in [
            ("package.json.in", "{\"name\": \"{{name}}\"}"),
            ("src/plugin.js", "// {{wasm}}"),
            ("node_modules/x/index.js", "no"),
            ("src/__pycache__/a.pyc", "no"),
        ] {
            let path = t.join(file);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        }
        let mut files = Vec::new();
        read_templates(t, Path::new(""), &mut files).expect("read");
        let names: Vec<PathBuf> = files.into_iter().map(|(f, _)| f).collect();
        assert_eq!(
            names,
            [
                PathBuf::from("package.json"),
                PathBuf::from("src/plugin.js")
            ]
        );
    }

    #[test]
    fn the_http_examples_are_what_the_http_templates_write() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        for (template, example, name) in [
            (
                "sdk/js/template-http/src/plugin.js.in",
                "examples/http-api-js/src/plugin.js",
                "http-api-js",
            ),
            (
                "sdk/python/template-http/app.py.in",
                "examples/http-api-python/app.py",
                "http-api-python",
            ),
        ] {
            let written = std::fs::read_to_string(repo.join(template))
                .expect("template")
                .replace("{{name}}", name);
            let example_text = std::fs::read_to_string(repo.join(example)).expect("example");
            assert_eq!(
                written, example_text,
                "{example} differs from {template}: change both"
            );
        }
    }

    #[test]
    fn an_overlay_replaces_files_of_the_same_path_and_adds_the_rest() {
        let mut files = vec![
            (PathBuf::from("app.py"), "tools".to_string()),
            (PathBuf::from(".gitignore"), "/.venv".to_string()),
        ];
        lay_over(
            &mut files,
            vec![
                (PathBuf::from("app.py"), "http".to_string()),
                (PathBuf::from("test/x.js"), "new".to_string()),
            ],
        );
        assert_eq!(
            files,
            [
                (PathBuf::from("app.py"), "http".to_string()),
                (PathBuf::from(".gitignore"), "/.venv".to_string()),
                (PathBuf::from("test/x.js"), "new".to_string()),
            ]
        );
    }

    #[test]
    fn names_are_crate_and_plugin_names() {
        for good in ["demo", "demo-tools", "my_tools2", "a"] {
            assert!(valid_name(good), "{good}");
        }
        for bad in [
            "",
            "2fast",
            "Demo",
            "demo tools",
            "-x",
            "é",
            &"x".repeat(33),
        ] {
            assert!(!valid_name(bad), "{bad}");
        }
    }
}
