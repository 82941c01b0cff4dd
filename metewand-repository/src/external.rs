//! Implementations from outside the repository: a folder holding `metewand-implementation.toml`, whose
//! `[workers.NAME]` and `[implementations.NAME]` tables (the keys of `metewand.toml`, paths relative to the folder,
//! `${repo}` meaning the folder) join a checked repository without changing it.
//!
//! The folder is checked like a repository's own tables, key by key with positions in its file: each worker's source
//! directory is hashed beneath the folder, so its identity is the folder's own tree. It may name only its own
//! workers, which serve implementations, and as a parameters schema an id of the benchmark's catalog, an inline
//! table or a schema file of its own (never one outside the folder), which join the catalog; it may redefine none of
//! the repository's names, nor another external folder's.

use super::*;

/// The definition file of an external folder, at its root.
pub const IMPLEMENTATION_FILE: &str = "metewand-implementation.toml";

/// The top-level keys of [`IMPLEMENTATION_FILE`].
const KEYS: [&str; 3] = ["format", "workers", "implementations"];

impl CheckedRepository {
    /// Joins the workers and implementations `folder`'s [`IMPLEMENTATION_FILE`] declares to the repository, after
    /// checking them as the repository's own are checked. Returns the names of the implementations it added, grid
    /// points included, in byte order. An error names the folder's file (by its path as given) and the key.
    pub fn add_external(&mut self, folder: &Path, options: &CheckOptions) -> Result<Vec<String>, CheckError> {
        let shown = folder.join(IMPLEMENTATION_FILE);
        let root = std::fs::canonicalize(folder)
            .map_err(|source| io_error(shown.clone(), format!("folder {}", folder.display()), source))?;
        let text = read_definition(&root.join(IMPLEMENTATION_FILE), &shown)?;
        let mut loader = Loader {
            source: Source { text: &text, file: shown },
            root,
            catalog: CatalogBuilder::extending(&self.catalog),
            external: true,
        };
        let (workers, implementations, names, catalog) = loader.external(self, options)?;
        let added: Vec<String> = implementations.keys().cloned().collect();
        self.implementation_names.plain.extend(names.plain);
        self.implementation_names.grids.extend(names.grids);
        let worker_ids = workers.iter().map(|(name, worker)| (name.as_str(), &worker.identity)).collect();
        // The parameters schemas its implementations name (a file of the folder among them), by id.
        let schemas = implementations
            .values()
            .filter_map(|implementation| implementation.parameters_schema.as_deref())
            .filter_map(|id| catalog.document(id).map(|document| (id, document)))
            .collect();
        let identity = identity::external_identity(&files::Sha256Digest::of(text.as_bytes()), &worker_ids, &schemas);
        self.workers.extend(workers);
        self.implementations.extend(implementations);
        self.catalog = catalog;
        self.external_identities.insert(loader.root.clone(), identity);
        self.externals.push(loader.root);
        Ok(added)
    }

    /// The external folders joined with [`CheckedRepository::add_external`], in the order they were added.
    pub fn externals(&self) -> &[PathBuf] {
        &self.externals
    }

    /// The identity of the external folder `folder` (its canonical path, as [`CheckedRepository::externals`] lists
    /// it): what a Slurm submission records and each of its tasks checks again, so that no task runs a changed
    /// folder under the ids planned from the old one. `None` for a folder not joined.
    pub fn external_identity(&self, folder: &Path) -> Option<files::Sha256Digest> {
        self.external_identities.get(folder).copied()
    }

    /// The names of the implementations external folders declare, in byte order.
    pub fn external_implementations(&self) -> Vec<&str> {
        self.implementations.values().filter(|i| i.external.is_some()).map(|i| i.name.as_str()).collect()
    }
}

type External = (BTreeMap<String, Worker>, BTreeMap<String, Implementation>, Names, SchemaCatalog);

impl Loader<'_> {
    /// Checks an external folder's file against `repository`: its workers and implementations, made whole.
    fn external(&mut self, repository: &CheckedRepository, options: &CheckOptions) -> Result<External, CheckError> {
        let document = parse_document(&self.source)?;
        let top = Table { name: "the top level".to_owned(), key: String::new(), table: document.get_ref(), span: 0..0 };
        top.only(&KEYS, &self.source)?;
        if let Some(format) = top.get("format") {
            let found = to_json(format, "format", &self.source)?;
            if found != 1 {
                return Err(self
                    .source
                    .error(format.span(), CheckErrorKind::UnsupportedFormat { found: found.to_string() }));
            }
        }
        to_json(&toml::Spanned::new(0..0, DeValue::Table(document.get_ref().clone())), "", &self.source)?;
        let root_fd = open_root(&self.root)
            .map_err(|source| io_error(self.root.clone(), format!("folder {}", self.root.display()), source))?;
        let mut workers = BTreeMap::new();
        for (name, table) in self.named_tables(&top, "workers")? {
            self.not_redefined(repository, "worker", name.as_str(), &table)?;
            let declared = self.worker(name.to_string(), &table)?;
            let worker = self.checked_worker(root_fd.as_fd(), declared, options)?;
            workers.insert(worker.name.clone(), worker);
        }
        let mut names = Names::default();
        let mut implementations = BTreeMap::new();
        let implementation_tables = self.named_tables(&top, "implementations")?;
        if implementation_tables.is_empty() {
            let kind = CheckErrorKind::InvalidValue {
                key: "implementations".to_owned(),
                message: "declares none: an external folder brings at least one [implementations.NAME]".to_owned(),
            };
            return Err(CheckError::new(Location { file: self.source.file.clone(), position: None }, kind));
        }
        // Each table is checked, and its schema file read, before the catalog is built again with the folder's
        // schemas; the parameters are validated against that catalog.
        let mut declarations = Vec::with_capacity(implementation_tables.len());
        for (name, table) in implementation_tables {
            self.not_redefined(repository, "implementation", name.as_str(), &table)?;
            table.only(definition::Implementation::PROPERTIES, &self.source)?;
            let mut declared = self.definition("implementation", name, &table, "worker", &[])?;
            if let Some(schema) = &mut declared.parameters_schema
                && matches!(table.get("parameters_schema").map(toml::Spanned::get_ref), Some(DeValue::String(_)))
                && !schema.id.contains(':')
            {
                schema.id = self.schema_file(&schema.id, &schema.key, &schema.span)?;
            }
            let (worker_name, span) = &declared.worker;
            let owner = format!("implementation {:?}", declared.name.as_str());
            let Some(worker) = workers.get(worker_name) else {
                let suggestion = did_you_mean(worker_name, workers.keys().map(String::as_str)).map(str::to_owned);
                let kind = CheckErrorKind::UnknownWorker { owner, worker: worker_name.clone(), suggestion };
                return Err(self.source.error(span.clone(), kind));
            };
            if worker.role != Role::Implementation {
                let kind = CheckErrorKind::WrongRole {
                    owner,
                    worker: worker_name.clone(),
                    role: worker.role.to_string(),
                    expected: Role::Implementation.to_string(),
                };
                return Err(self.source.error(span.clone(), kind));
            }
            declarations.push(declared);
        }
        let catalog = std::mem::replace(&mut self.catalog, CatalogBuilder::new()).build()?;
        for mut declared in declarations {
            let worker_name = &declared.worker.0;
            if let Some(schema) = &declared.parameters_schema
                && !catalog.contains(&schema.id)
            {
                let kind = CheckErrorKind::UnknownSchema { key: schema.key.clone(), id: schema.id.clone() };
                return Err(self.source.error(schema.span.clone(), kind));
            }
            let grid = std::mem::take(&mut declared.grid);
            let points = if grid.is_empty() {
                names.plain.insert(declared.name.to_string());
                vec![(declared.name.to_string(), declared.parameters.clone(), BTreeMap::new())]
            } else {
                let expanded = grid::points(declared.name.as_str(), &declared.parameters, &grid);
                names.grids.insert(declared.name.to_string(), grid::grid_of(&grid, &expanded));
                expanded
                    .into_iter()
                    .map(|(name, parameters, values)| {
                        (name, parameters, grid.iter().map(|axis| axis.key.clone()).zip(values).collect())
                    })
                    .collect()
            };
            for (point, parameters, coordinates) in points {
                if let Some(schema) = &declared.parameters_schema
                    && let Err(diagnostics) = catalog.validate(&schema.id, &Value::Object(parameters.clone()))
                {
                    let kind = CheckErrorKind::InvalidParameters {
                        owner: format!("implementation {point:?}"),
                        schema: schema.id.clone(),
                        diagnostics,
                    };
                    return Err(self.source.error(declared.parameters_span.clone(), kind));
                }
                if repository.implementations.contains_key(&point) {
                    let kind = redefined("implementation", &point, repository);
                    return Err(self.source.error(declared.worker.1.clone(), kind));
                }
                let implementation = Implementation {
                    name: Name::try_from(point.as_str()).expect("a point's name is not empty"),
                    worker: worker_name.clone(),
                    parameters,
                    parameters_schema: declared.parameters_schema.as_ref().map(|schema| schema.id.clone()),
                    capabilities: declared.capabilities.clone(),
                    grid: coordinates,
                    external: Some(self.root.clone()),
                };
                implementations.insert(point, implementation);
            }
        }
        Ok((workers, implementations, names, catalog))
    }

    /// Reads the schema file `path` names inside the folder (`parameters_schema = "schemas/params.schema.json"`)
    /// into the catalog, checked as a repository's schema file is, and returns its `$id`. A path that leaves the
    /// folder, by `..` or through a link, is refused at `span`.
    fn schema_file(&mut self, path: &str, key: &str, span: &Range<usize>) -> Result<String, CheckError> {
        let invalid = |message: String| {
            self.source.error(span.clone(), CheckErrorKind::InvalidValue { key: key.to_owned(), message })
        };
        let relative = match RelativePath::new(path) {
            Ok(relative) => relative,
            Err(files::PathError::DotDotComponent | files::PathError::Absolute) => {
                return Err(invalid(format!(
                    "is {path:?}, which leaves the external folder: name a schema file by its path inside the \
                     folder, or a schema of the benchmark by its id"
                )));
            }
            Err(reason) => {
                let kind = CheckErrorKind::InvalidPath { key: key.to_owned(), path: path.to_owned(), reason };
                return Err(self.source.error(span.clone(), kind));
            }
        };
        let shown = self.source.file.parent().unwrap_or(Path::new("")).join(relative.as_str());
        let what = format!("schema file {}", shown.display());
        let found = std::fs::canonicalize(self.root.join(relative.as_str()))
            .map_err(|source| io_error(shown.clone(), what.clone(), source))?;
        if !found.starts_with(&self.root) {
            return Err(invalid(format!(
                "is {path:?}, which leads out of the external folder through a link: a schema file lies inside it"
            )));
        }
        #[allow(
            clippy::disallowed_methods,
            reason = "a schema file of the external folder, its submitter's, read before any worker runs; bounded by document.rs"
        )]
        let mut file = File::open(&found).map_err(|source| io_error(shown.clone(), what.clone(), source))?;
        let bytes = document::read_document(&mut file).map_err(|error| match error {
            document::DocumentError::TooLarge { size } => CheckError::new(
                Location { file: shown.clone(), position: None },
                CheckErrorKind::TooLarge { what: what.clone(), size },
            ),
            document::DocumentError::Io(source) => io_error(shown.clone(), what.clone(), source),
        })?;
        self.catalog.add_file(shown, bytes)
    }

    /// Refuses `name` of `kind` where the repository (or an external folder joined before) already defines it.
    fn not_redefined(
        &self,
        repository: &CheckedRepository,
        kind: &'static str,
        name: &str,
        table: &Table<'_, '_>,
    ) -> Result<(), CheckError> {
        let taken = match kind {
            "worker" => repository.workers.contains_key(name),
            _ => repository.implementations.contains_key(name) || repository.implementation_names.grid(name).is_some(),
        };
        if taken { Err(self.source.error(table.span.clone(), redefined(kind, name, repository))) } else { Ok(()) }
    }
}

/// A name of `kind` the repository already defines, said with who defines it.
fn redefined(kind: &'static str, name: &str, repository: &CheckedRepository) -> CheckErrorKind {
    let external = match kind {
        "worker" => repository.workers.get(name).and_then(|worker| worker.external.clone()),
        _ => repository.implementations.get(name).and_then(|implementation| implementation.external.clone()),
    };
    let by = match external {
        Some(folder) => format!("the external folder {}", folder.display()),
        None => format!("the benchmark repository {}", repository.root.display()),
    };
    CheckErrorKind::Redefined { kind, name: name.to_owned(), by }
}
