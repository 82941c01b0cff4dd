//! The loader: `metewand.toml` read with its spans and checked in a fixed order into a [`CheckedRepository`].

use std::sync::Arc;

use super::*;

/// A schema reference as written: an id, or an inline table that became one.
#[derive(Clone)]
pub(super) struct SchemaRef {
    pub(super) id: String,
    pub(super) key: String,
    pub(super) span: Range<usize>,
}

#[derive(Clone)]
pub(super) struct Declared {
    pub(super) kind: &'static str,
    pub(super) name: Name,
    pub(super) worker: (String, Range<usize>),
    pub(super) parameters: JsonObject,
    pub(super) parameters_span: Range<usize>,
    pub(super) parameters_schema: Option<SchemaRef>,
    pub(super) schemas: Vec<SchemaRef>,
    pub(super) capabilities: Vec<Capability>,
    pub(super) timed: Timed,
    pub(super) profile: Option<u64>,
    /// A problem's `rejudge_tolerance`.
    pub(super) rejudge_tolerance: Option<f64>,
    /// The grid's keys in byte order (none without a grid).
    pub(super) grid: Vec<GridAxis>,
    /// A point of a grid: its values, by key.
    pub(super) coordinates: BTreeMap<String, Value>,
}

pub(super) struct Loader<'t> {
    pub(super) source: Source<'t>,
    pub(super) root: PathBuf,
    pub(super) catalog: CatalogBuilder,
    /// Whether the root is an external folder's (`metewand-implementation.toml`) rather than the repository's.
    pub(super) external: bool,
}

pub(super) fn io_error(file: PathBuf, what: String, source: std::io::Error) -> CheckError {
    CheckError::new(Location { file, position: None }, CheckErrorKind::Io { what, source })
}

/// The text of a definition file (`metewand.toml`, `metewand-implementation.toml`) at `path`, UTF-8 and bounded like
/// every document; errors name the file as `shown`.
pub(super) fn read_definition(path: &Path, shown: &Path) -> Result<String, CheckError> {
    let name =
        shown.file_name().map_or_else(|| shown.display().to_string(), |name| name.to_string_lossy().into_owned());
    #[allow(
        clippy::disallowed_methods,
        reason = "a definition file is its author's, read by check before any worker runs; the document is bounded by document.rs"
    )]
    let mut file = File::open(path).map_err(|source| io_error(shown.to_owned(), name.clone(), source))?;
    let bytes = document::read_document(&mut file).map_err(|error| match error {
        document::DocumentError::TooLarge { size } => CheckError::new(
            Location { file: shown.to_owned(), position: None },
            CheckErrorKind::TooLarge { what: name.clone(), size },
        ),
        document::DocumentError::Io(source) => io_error(shown.to_owned(), name.clone(), source),
    })?;
    String::from_utf8(bytes).map_err(|error| {
        let position = Some(locate::line_column(error.as_bytes(), error.utf8_error().valid_up_to()));
        CheckError::new(
            Location { file: shown.to_owned(), position },
            CheckErrorKind::Toml { message: "the file is not UTF-8".to_owned() },
        )
    })
}

/// A number of seconds the check found a duration can hold ([`Loader::duration`]), as that duration.
fn seconds(seconds: PositiveNumber) -> Duration {
    Duration::from_secs_f64(seconds.get())
}

/// Names of workers, datasets, problems, implementations and campaigns: a letter or digit, then letters, digits,
/// `_`, `-`, `.`, as the `repository-definition` schema's `declared_name` says.
pub fn valid_name(name: &str) -> bool {
    definition::DeclaredName::try_from(name).is_ok()
}

/// A valid name ([`valid_name`]) as the records hold it; `None` for any other text.
fn checked_name(name: &str) -> Option<Name> {
    if valid_name(name) { Name::try_from(name).ok() } else { None }
}

impl Loader<'_> {
    pub(super) fn load(path: &Path, options: &CheckOptions) -> Result<CheckedRepository, CheckError> {
        let manifest_name = PathBuf::from(MANIFEST_FILE);
        let root = std::fs::canonicalize(path)
            .map_err(|source| io_error(path.to_owned(), format!("repository {}", path.display()), source))?;
        let text = read_definition(&root.join(MANIFEST_FILE), &manifest_name)?;
        let loader = Loader {
            source: Source { text: &text, file: manifest_name },
            root,
            catalog: CatalogBuilder::new(),
            external: false,
        };
        loader.check(options)
    }

    pub(super) fn check(mut self, options: &CheckOptions) -> Result<CheckedRepository, CheckError> {
        let document = parse_document(&self.source)?;
        let top = Table { name: "the top level".to_owned(), key: String::new(), table: document.get_ref(), span: 0..0 };
        top.only(definition::RepositoryDefinition::PROPERTIES, &self.source)?;
        let format = top.required("format", &self.source)?;
        // Numbers are values: `format = 1.0` is format 1.
        if to_json(format, "format", &self.source)? != 1 {
            let found = match format.get_ref() {
                DeValue::Integer(integer) => integer.to_string(),
                DeValue::Float(float) => float.to_string(),
                DeValue::String(text) => format!("{text:?}"),
                _ => "a value of another type".to_owned(),
            };
            return Err(self.source.error(format.span(), CheckErrorKind::UnsupportedFormat { found }));
        }
        // Every value must map into the JSON domain, wherever it is.
        to_json(&toml::Spanned::new(0..0, DeValue::Table(document.get_ref().clone())), "", &self.source)?;

        if let Some(value) = top.get("schemas") {
            self.schema_files(&top.table("schemas", value, &self.source)?)?;
        }
        let timeouts = match top.get("timeouts") {
            Some(value) => self.timeouts(&top.table("timeouts", value, &self.source)?)?,
            None => BTreeMap::new(),
        };
        let budgets = match top.get("budgets") {
            Some(value) => self.budgets(&top.table("budgets", value, &self.source)?)?,
            None => Budgets::default(),
        };
        let (limits, limits_declared) = match top.get("limits") {
            Some(value) => {
                let table = top.table("limits", value, &self.source)?;
                let declared =
                    definition::Limits::PROPERTIES.iter().copied().filter(|key| table.get(key).is_some()).collect();
                (self.limits(&table)?, declared)
            }
            None => (Limits::default(), BTreeSet::new()),
        };
        let mut declared_workers = Vec::new();
        for (name, value) in self.named_tables(&top, "workers")? {
            declared_workers.push(self.worker(name.to_string(), &value)?);
        }
        let mut declared = Vec::new();
        for (kind, allowed, worker_key, schema_keys) in [
            ("dataset", definition::Dataset::PROPERTIES, "materializer", &["output_schema"][..]),
            ("problem", definition::Problem::PROPERTIES, "evaluator", &["result_schema", "metric_schema"][..]),
            ("implementation", definition::Implementation::PROPERTIES, "worker", &[][..]),
        ] {
            let section = format!("{kind}s");
            for (name, table) in self.named_tables(&top, &section)? {
                table.only(allowed, &self.source)?;
                declared.push(self.definition(kind, name, &table, worker_key, schema_keys)?);
            }
        }

        let catalog = std::mem::replace(&mut self.catalog, CatalogBuilder::new()).build()?;

        // References: workers and their roles, then schema ids.
        let roles: BTreeMap<&str, Role> = declared_workers.iter().map(|w| (w.name.as_str(), w.role)).collect();
        for definition in &declared {
            let (worker, span) = &definition.worker;
            let owner = format!("{} {:?}", definition.kind, definition.name.as_str());
            let expected = match definition.kind {
                "dataset" => Role::DatasetMaterializer,
                "problem" => Role::ProblemEvaluator,
                _ => Role::Implementation,
            };
            match roles.get(worker.as_str()) {
                None => {
                    let suggestion = did_you_mean(worker, roles.keys().copied()).map(str::to_owned);
                    let kind = CheckErrorKind::UnknownWorker { owner, worker: worker.clone(), suggestion };
                    return Err(self.source.error(span.clone(), kind));
                }
                Some(&role) if role != expected => {
                    let kind = CheckErrorKind::WrongRole {
                        owner,
                        worker: worker.clone(),
                        role: role.to_string(),
                        expected: expected.to_string(),
                    };
                    return Err(self.source.error(span.clone(), kind));
                }
                Some(_) => {}
            }
            for schema in definition.schemas.iter().chain(&definition.parameters_schema) {
                if !catalog.contains(&schema.id) {
                    let kind = CheckErrorKind::UnknownSchema { key: schema.key.clone(), id: schema.id.clone() };
                    return Err(self.source.error(schema.span.clone(), kind));
                }
            }
        }

        // Source trees and worker identities.
        let root_fd = open_root(&self.root)
            .map_err(|source| io_error(self.root.clone(), format!("repository {}", self.root.display()), source))?;
        let mut workers = BTreeMap::new();
        for declared_worker in declared_workers {
            let worker = self.checked_worker(root_fd.as_fd(), declared_worker, options)?;
            workers.insert(worker.name.clone(), worker);
        }

        // Each grid becomes its points, each one a definition of its own.
        let mut names: [Names; 3] = Default::default();
        let mut points = Vec::with_capacity(declared.len());
        for definition in declared {
            let slot = match definition.kind {
                "dataset" => 0,
                "problem" => 1,
                _ => 2,
            };
            if definition.grid.is_empty() {
                names[slot].plain.insert(definition.name.to_string());
                points.push(definition);
                continue;
            }
            if let Some(schema) = &definition.parameters_schema {
                grid::check_keys(&definition.grid, &schema.id, catalog.document(&schema.id), &self.source)?;
            }
            let expanded = grid::points(definition.name.as_str(), &definition.parameters, &definition.grid);
            names[slot].grids.insert(definition.name.to_string(), grid::grid_of(&definition.grid, &expanded));
            // Each point is the definition without its grid: cloning the grid into every point would cost the
            // product of the grid's size and its values.
            let mut definition = definition;
            let axes = std::mem::take(&mut definition.grid);
            for (name, parameters, values) in expanded {
                let mut point = definition.clone();
                point.name = Name::try_from(name.as_str()).expect("a point's name is not empty");
                point.parameters = parameters;
                point.coordinates = axes.iter().map(|axis| axis.key.clone()).zip(values).collect();
                points.push(point);
            }
        }
        let declared = points;
        let [dataset_names, problem_names, implementation_names] = names;

        // Parameters against their schemas, then the checked definitions.
        let mut datasets = BTreeMap::new();
        let mut problems = BTreeMap::new();
        let mut implementations: BTreeMap<String, Implementation> = BTreeMap::new();
        // Where each implementation names its worker, to point at both of two twins.
        let mut implementation_at: BTreeMap<String, Range<usize>> = BTreeMap::new();
        let mut implementation_inputs: BTreeMap<(String, Vec<u8>), String> = BTreeMap::new();
        let mut closures: BTreeMap<Vec<String>, Arc<identity::SchemaClosure>> = BTreeMap::new();
        for definition in declared {
            let owner = format!("{} {:?}", definition.kind, definition.name.as_str());
            if let Some(schema) = &definition.parameters_schema
                && let Err(diagnostics) = catalog.validate(&schema.id, &Value::Object(definition.parameters.clone()))
            {
                let kind = CheckErrorKind::InvalidParameters { owner, schema: schema.id.clone(), diagnostics };
                return Err(self.source.error(definition.parameters_span.clone(), kind));
            }
            let worker = &workers[&definition.worker.0];
            let parameters_schema = definition.parameters_schema.map(|schema| schema.id);
            let named: Vec<String> =
                definition.schemas.iter().map(|s| s.id.clone()).chain(parameters_schema.clone()).collect();
            // A grid's points name the same schemas: their closure is computed and held once.
            let schemas = Arc::clone(closures.entry(named).or_insert_with_key(|named| {
                Arc::new(identity::SchemaClosure::new(catalog.closure(named.iter().map(String::as_str))))
            }));
            match definition.kind {
                "dataset" => {
                    let dataset = Dataset {
                        name: definition.name.clone(),
                        materializer: definition.worker.0,
                        materializer_identity: worker.identity.clone(),
                        parameters: definition.parameters,
                        parameters_schema,
                        output_schema: definition.schemas[0].id.clone(),
                        schemas,
                        grid: definition.coordinates,
                    };
                    datasets.insert(definition.name.to_string(), dataset);
                }
                "problem" => {
                    let result_schema = definition.schemas[0].id.clone();
                    let metric_schema = definition.schemas[1].id.clone();
                    let contract_id = problem_contract_id(
                        &worker.identity,
                        &metric_schema,
                        parameters_schema.as_deref(),
                        &result_schema,
                        schemas.schemas(),
                    );
                    let problem = Problem {
                        name: definition.name.clone(),
                        evaluator: definition.worker.0,
                        parameters: definition.parameters,
                        parameters_schema,
                        result_schema,
                        metric_schema,
                        contract_id,
                        timed: definition.timed,
                        profile: definition.profile,
                        rejudge_tolerance: definition.rejudge_tolerance,
                        grid: definition.coordinates,
                    };
                    problems.insert(definition.name.to_string(), problem);
                }
                _ => {
                    // Two implementations of one worker identity and parameters would plan the same attempt ids.
                    // Looked up by identity and canonical parameters: a grid may make many thousand implementations.
                    let inputs = (
                        worker.identity.to_string(),
                        protocol::to_canonical_vec(&Value::Object(definition.parameters.clone())),
                    );
                    let twin = implementation_inputs.get(&inputs).map(|name| &implementations[name]);
                    if let Some(twin) = twin {
                        let kind = CheckErrorKind::TwinImplementations {
                            name: definition.name.to_string(),
                            twin: twin.name.to_string(),
                            twin_at: self.source.at(implementation_at[twin.name.as_str()].clone()),
                        };
                        return Err(self.source.error(definition.worker.1.clone(), kind));
                    }
                    implementation_at.insert(definition.name.to_string(), definition.worker.1.clone());
                    implementation_inputs.insert(inputs, definition.name.to_string());
                    let implementation = Implementation {
                        name: definition.name.clone(),
                        worker: definition.worker.0,
                        parameters: definition.parameters,
                        parameters_schema,
                        capabilities: definition.capabilities,
                        grid: definition.coordinates,
                        external: None,
                    };
                    implementations.insert(definition.name.to_string(), implementation);
                }
            }
        }
        let known = campaign::Known {
            problems: (problems.keys().map(String::as_str).collect(), &problem_names),
            datasets: (datasets.keys().map(String::as_str).collect(), &dataset_names),
            implementations: (implementations.keys().map(String::as_str).collect(), &implementation_names),
        };
        let mut campaigns = BTreeMap::new();
        for (name, table) in self.named_tables(&top, "campaigns")? {
            let spec = campaign::check(name.to_string(), &table, &known, &self.source)?;
            campaigns.insert(name.to_string(), spec);
        }
        Ok(CheckedRepository {
            campaigns,
            root: self.root,
            catalog,
            timeouts,
            budgets,
            limits,
            limits_declared,
            workers,
            datasets,
            problems,
            implementations,
            dataset_names,
            problem_names,
            implementation_names,
            externals: Vec::new(),
            external_identities: BTreeMap::new(),
        })
    }

    /// The `[section.NAME]` tables of a section, in source order, each with a checked name.
    pub(super) fn named_tables<'a, 't>(
        &self,
        top: &Table<'a, 't>,
        section: &str,
    ) -> Result<Vec<(Name, Table<'a, 't>)>, CheckError> {
        let Some(value) = top.get(section) else { return Ok(Vec::new()) };
        let table = top.table(section, value, &self.source)?;
        let mut out = Vec::new();
        for (name, value) in table.entries() {
            let Some(checked) = checked_name(name.get_ref()) else {
                let kind = CheckErrorKind::InvalidValue {
                    key: format!("{section} name {:?}", name.get_ref()),
                    message: "is not a valid name: use a letter or digit, then letters, digits, _, - or .".to_owned(),
                };
                return Err(self.source.error(name.span(), kind));
            };
            out.push((checked, table.table(name.get_ref(), value, &self.source)?));
        }
        Ok(out)
    }

    pub(super) fn schema_files(&mut self, table: &Table<'_, '_>) -> Result<(), CheckError> {
        table.only(definition::SchemaFiles::PROPERTIES, &self.source)?;
        let Some(files) = table.get("files") else { return Ok(()) };
        let mut seen = BTreeSet::new();
        for (pattern, span) in strings(files, &table.member("files"), &self.source)? {
            let invalid = |reason: String| {
                self.source.error(span.clone(), CheckErrorKind::InvalidGlob { pattern: pattern.to_owned(), reason })
            };
            // The pattern's text must be a relative path inside the repository (glob characters allowed).
            if let Err(reason) = RelativePath::new(pattern) {
                return Err(invalid(format!("{reason}; a glob is a relative path inside the repository")));
            }
            let full = self.root.join(pattern);
            let full =
                full.to_str().ok_or_else(|| invalid("cannot be used: the repository path is not UTF-8".to_owned()))?;
            let options = glob::MatchOptions { require_literal_leading_dot: true, ..glob::MatchOptions::new() };
            let paths = glob::glob_with(full, options)
                .map_err(|error| invalid(format!("is not a valid glob: {}", error.msg)))?;
            let mut matched: Vec<PathBuf> = Vec::new();
            for path in paths {
                let path = path.map_err(|error| invalid(format!("cannot be expanded: {error}")))?;
                if path.is_file() {
                    matched.push(path);
                }
            }
            if matched.is_empty() {
                return Err(self
                    .source
                    .error(span, CheckErrorKind::GlobMatchesNothing { pattern: pattern.to_owned() }));
            }
            matched.sort_by(|a, b| a.as_os_str().as_encoded_bytes().cmp(b.as_os_str().as_encoded_bytes()));
            for path in matched {
                let relative = path.strip_prefix(&self.root).unwrap_or(&path).to_owned();
                if !seen.insert(relative.clone()) {
                    continue;
                }
                let what = format!("schema file {}", relative.display());
                #[allow(
                    clippy::disallowed_methods,
                    reason = "the repository's schema files are its author's, read before any worker runs; each is bounded by document.rs"
                )]
                let mut file = File::open(&path).map_err(|source| io_error(relative.clone(), what.clone(), source))?;
                let bytes = document::read_document(&mut file).map_err(|error| match error {
                    document::DocumentError::TooLarge { size } => CheckError::new(
                        Location { file: relative.clone(), position: None },
                        CheckErrorKind::TooLarge { what: what.clone(), size },
                    ),
                    document::DocumentError::Io(source) => io_error(relative.clone(), what.clone(), source),
                })?;
                self.catalog.add_file(relative, bytes)?;
            }
        }
        Ok(())
    }

    /// A positive number of seconds.
    pub(super) fn duration(&self, value: &Value_<'_>, key: String) -> Result<Duration, CheckError> {
        let seconds = match to_json(value, &key, &self.source)? {
            Value::Number(number) => number.as_f64(),
            _ => return Err(wrong_type(&self.source, value.span(), key, "a number of seconds", value.get_ref())),
        };
        match seconds.map(Duration::try_from_secs_f64) {
            Some(Ok(duration)) if !duration.is_zero() => Ok(duration),
            _ => Err(self.source.error(
                value.span(),
                CheckErrorKind::InvalidValue {
                    key,
                    message: "must be a positive number of seconds that a duration can hold".to_owned(),
                },
            )),
        }
    }

    pub(super) fn timeouts(&self, table: &Table<'_, '_>) -> Result<BTreeMap<Phase, Duration>, CheckError> {
        table.only(definition::Timeouts::PROPERTIES, &self.source)?;
        for method in Phase::ALL {
            if let Some(value) = table.get(method.as_str()) {
                self.duration(value, table.member(method.as_str()))?;
            }
        }
        let timeouts: definition::Timeouts = table.decode(&self.source)?;
        let declared = |phase: Phase| match phase {
            Phase::Hello => timeouts.hello,
            Phase::Materialize => timeouts.materialize,
            Phase::Prepare => timeouts.prepare,
            Phase::Execute => timeouts.execute,
            Phase::Reset => timeouts.reset,
            Phase::Evaluate => timeouts.evaluate,
            Phase::Shutdown => timeouts.shutdown,
        };
        Ok(Phase::ALL.into_iter().filter_map(|phase| Some((phase, seconds(declared(phase)?)))).collect())
    }

    pub(super) fn budgets(&self, table: &Table<'_, '_>) -> Result<Budgets, CheckError> {
        table.only(definition::Budgets::PROPERTIES, &self.source)?;
        for key in definition::Budgets::PROPERTIES {
            if let Some(value) = table.get(key) {
                self.duration(value, table.member(key))?;
            }
        }
        let budgets: definition::Budgets = table.decode(&self.source)?;
        Ok(Budgets {
            materialization: budgets.materialization.map(seconds),
            implementation: budgets.implementation.map(seconds),
            evaluation: budgets.evaluation.map(seconds),
        })
    }

    pub(super) fn limits(&self, table: &Table<'_, '_>) -> Result<Limits, CheckError> {
        const BYTES: (&str, &str) = ("bytes", "a number of bytes");
        const PROCESSES: (&str, &str) = ("processes", "a number of processes");
        const SECONDS: (&str, &str) = ("seconds", "a number of seconds");
        table.only(definition::Limits::PROPERTIES, &self.source)?;
        self.positive(table, "output_bytes", BYTES)?;
        self.positive(table, "memory_bytes", BYTES)?;
        self.positive(table, "processes", PROCESSES)?;
        self.positive(table, "cpu_seconds", SECONDS)?;
        let limits: definition::Limits = table.decode(&self.source)?;
        let defaults = Limits::default();
        Ok(Limits {
            output_bytes: limits.output_bytes.map_or(defaults.output_bytes, u64::from),
            memory_bytes: limits.memory_bytes.map(u64::from),
            processes: limits.processes.map_or(defaults.processes, u64::from),
            cpu_seconds: limits.cpu_seconds.map(u64::from),
        })
    }

    /// The positive whole number `key` of `table` counts (of `unit`: its name, and what the value must be), if
    /// it is there.
    pub(super) fn positive(
        &self,
        table: &Table<'_, '_>,
        key: &str,
        (unit, expected): (&str, &'static str),
    ) -> Result<Option<u64>, CheckError> {
        let Some(value) = table.get(key) else { return Ok(None) };
        let member = table.member(key);
        match to_json(value, &member, &self.source)? {
            Value::Number(number) => match number.as_u64() {
                Some(count) if count > 0 => Ok(Some(count)),
                _ => Err(self.source.error(
                    value.span(),
                    CheckErrorKind::InvalidValue {
                        key: member,
                        message: format!("must be a positive whole number of {unit}"),
                    },
                )),
            },
            _ => Err(wrong_type(&self.source, value.span(), member, expected, value.get_ref())),
        }
    }

    /// Checks a problem's `profile = { checkpoints = N }`: the most checkpoints a streamed execution may send, from 1
    /// to [`MAX_CHECKPOINTS`].
    fn profile(&self, table: &Table<'_, '_>) -> Result<(), CheckError> {
        let Some(value) = table.get("profile") else { return Ok(()) };
        let profile = table.table("profile", value, &self.source)?;
        profile.only(definition::Profile::PROPERTIES, &self.source)?;
        let checkpoints = profile.required("checkpoints", &self.source)?;
        let count = self.positive(&profile, "checkpoints", ("checkpoints", "a number of checkpoints"))?;
        match count {
            Some(count) if count <= MAX_CHECKPOINTS => Ok(()),
            _ => {
                let message = format!("must be at most {MAX_CHECKPOINTS}");
                let key = profile.member("checkpoints");
                Err(self.source.error(checkpoints.span(), CheckErrorKind::InvalidValue { key, message }))
            }
        }
    }

    /// A command or env value: only `${repo}` substitutions, and no NUL (no process could receive it).
    pub(super) fn check_process_string(&self, text: &str, span: &Range<usize>, key: String) -> Result<(), CheckError> {
        if let Err(found) = check_substitutions(text) {
            return Err(self.source.error(span.clone(), CheckErrorKind::Substitution { key, found }));
        }
        if text.contains('\0') {
            let kind = CheckErrorKind::InvalidValue { key, message: "contains a NUL character".to_owned() };
            return Err(self.source.error(span.clone(), kind));
        }
        Ok(())
    }

    pub(super) fn schema_ref(
        &mut self,
        table: &Table<'_, '_>,
        key: &str,
        value: &Value_<'_>,
    ) -> Result<SchemaRef, CheckError> {
        let member = table.member(key);
        let id = match value.get_ref() {
            DeValue::String(id) => id.to_string(),
            DeValue::Table(_) => {
                let schema = to_json(value, &member, &self.source)?;
                self.catalog.add_inline(schema, self.source.at(value.span()))?
            }
            other => {
                return Err(wrong_type(
                    &self.source,
                    value.span(),
                    member,
                    "a schema id or an inline schema table",
                    other,
                ));
            }
        };
        Ok(SchemaRef { id, key: member, span: value.span() })
    }

    /// A `[datasets.NAME]`, `[problems.NAME]` or `[implementations.NAME]` table: checked key by key with positions
    /// (its inline schemas registered in the catalog as they are met), then decoded as its generated type, which the
    /// declaration is built from. The schema ids are the catalog's: an inline schema's id is the one it was
    /// registered under, which no generated type holds.
    pub(super) fn definition(
        &mut self,
        kind: &'static str,
        name: Name,
        table: &Table<'_, '_>,
        worker_key: &str,
        schema_keys: &[&str],
    ) -> Result<Declared, CheckError> {
        let worker_value = table.required(worker_key, &self.source)?;
        string(worker_value, table.member(worker_key), &self.source)?;
        let parameters_span = match table.get("parameters") {
            Some(value) if matches!(value.get_ref(), DeValue::Table(_)) => value.span(),
            Some(value) => {
                return Err(wrong_type(
                    &self.source,
                    value.span(),
                    table.member("parameters"),
                    "a table",
                    value.get_ref(),
                ));
            }
            None => table.span.clone(),
        };
        let parameters_schema = match table.get("parameters_schema") {
            Some(value) => Some(self.schema_ref(table, "parameters_schema", value)?),
            None => None,
        };
        let mut schemas = Vec::new();
        for key in schema_keys {
            let value = table.required(key, &self.source)?;
            schemas.push(self.schema_ref(table, key, value)?);
        }
        if let Some(value) = table.get("rejudge_tolerance") {
            let positive = to_json(value, &table.member("rejudge_tolerance"), &self.source)?
                .as_f64()
                .is_some_and(|tolerance| tolerance > 0.0 && tolerance.is_finite());
            if !positive {
                let key = table.member("rejudge_tolerance");
                let message = "must be a number above 0 (a relative tolerance)".to_owned();
                return Err(self.source.error(value.span(), CheckErrorKind::InvalidValue { key, message }));
            }
        }
        if let Some(value) = table.get("timed") {
            let key = table.member("timed");
            let text = string(value, key.clone(), &self.source)?;
            if text.parse::<Timed>().is_err() {
                let message = format!("is {text:?}; expected \"execute\" or \"prepare+execute\"");
                return Err(self.source.error(value.span(), CheckErrorKind::InvalidValue { key, message }));
            }
        }
        if let Some(value) = table.get("capabilities") {
            let mut selected = Vec::new();
            for (i, (text, span)) in
                strings(value, &table.member("capabilities"), &self.source)?.into_iter().enumerate()
            {
                let key = format!("{}[{i}]", table.member("capabilities"));
                let invalid = |message: String| {
                    self.source.error(span.clone(), CheckErrorKind::InvalidValue { key: key.clone(), message })
                };
                let capability: Capability =
                    text.parse().map_err(|_| invalid(format!("is {text:?}, which is not a capability")))?;
                if !matches!(capability, Capability::OneShot | Capability::StreamingProfile) {
                    return Err(invalid(format!(
                        "is {text:?}, which is reserved: protocol version 1 sessions may select only one_shot and \
                         streaming_profile"
                    )));
                }
                if selected.contains(&capability) {
                    return Err(invalid(format!("selects {text:?} twice")));
                }
                selected.push(capability);
            }
        }
        self.profile(table)?;
        let mut rejudge_tolerance = None;
        let (worker, parameters, capabilities, timed, profile) = match kind {
            "dataset" => {
                let dataset: definition::Dataset = table.decode(&self.source)?;
                (dataset.materializer, dataset.parameters, None, None, None)
            }
            "problem" => {
                let problem: definition::Problem = table.decode(&self.source)?;
                rejudge_tolerance = problem.rejudge_tolerance.map(|tolerance| tolerance.get());
                (problem.evaluator, problem.parameters, None, problem.timed, problem.profile)
            }
            _ => {
                let implementation: definition::Implementation = table.decode(&self.source)?;
                (implementation.worker, implementation.parameters, implementation.capabilities, None, None)
            }
        };
        let parameters = parameters.unwrap_or_default();
        let owner = format!("{kind} {:?}", name.as_str());
        let grid = grid::check_grid(table, &parameters, &owner, &self.source)?;
        // The schema's bound is the loader's: a schema that changed it would not compile here.
        let checkpoints = |profile: definition::Profile| -> BoundedUint<1, MAX_CHECKPOINTS> { profile.checkpoints };
        Ok(Declared {
            kind,
            name,
            worker: (worker, worker_value.span()),
            parameters,
            parameters_span: grid.first().map_or(parameters_span, |axis| axis.span.clone()),
            parameters_schema,
            schemas,
            capabilities: capabilities.map_or_else(|| vec![Capability::OneShot], |selected| selected.into_vec()),
            timed: timed.unwrap_or(Timed::Execute),
            profile: profile.map(|profile| checkpoints(profile).get()),
            rejudge_tolerance,
            grid,
            coordinates: BTreeMap::new(),
        })
    }
}
