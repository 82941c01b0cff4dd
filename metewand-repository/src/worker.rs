//! The check of one `[workers.NAME]` table: its role, command, environment, network access, system calls,
//! determinism, adapter (and the placeholders of an adapted command), source and include folders, checked with
//! positions and then decoded as the schema's `Worker`, which the declaration is built from (the loader then hashes
//! the folders and computes the worker's identity).

use super::*;

pub(super) struct DeclaredWorker {
    pub(super) name: String,
    pub(super) role: Role,
    pub(super) command: Vec<String>,
    pub(super) env: BTreeMap<String, String>,
    pub(super) network: bool,
    pub(super) syscalls: SyscallGroups,
    pub(super) seed_independent: bool,
    pub(super) adapter: bool,
    pub(super) result_data: Option<String>,
    pub(super) source: String,
    pub(super) source_span: Range<usize>,
    /// The `include` folders as written, each with its span.
    pub(super) include: Vec<(String, Range<usize>)>,
    /// The span of `identity = ["environment"]` when the worker declared it.
    pub(super) identity_environment: Option<Range<usize>>,
    /// The `python.requirements` file as written, with its span.
    pub(super) python: Option<(String, Range<usize>)>,
}

impl Loader<'_> {
    pub(super) fn worker(&self, name: String, table: &Table<'_, '_>) -> Result<DeclaredWorker, CheckError> {
        table.only(definition::Worker::PROPERTIES, &self.source)?;
        let role_value = table.required("role", &self.source)?;
        let role_text = string(role_value, table.member("role"), &self.source)?;
        role_text.parse::<Role>().map_err(|_| {
            self.source.error(
                role_value.span(),
                CheckErrorKind::InvalidValue {
                    key: table.member("role"),
                    message: format!(
                        "is {role_text:?}, but must be dataset_materializer, implementation or problem_evaluator"
                    ),
                },
            )
        })?;
        let command_value = table.required("command", &self.source)?;
        let command = strings(command_value, &table.member("command"), &self.source)?;
        if command.is_empty() || command[0].0.is_empty() {
            let kind = CheckErrorKind::InvalidValue {
                key: table.member("command"),
                message: "must name a program: a nonempty array whose first item is nonempty".to_owned(),
            };
            return Err(self.source.error(command_value.span(), kind));
        }
        for (i, (arg, span)) in command.iter().enumerate() {
            self.check_process_string(arg, span, format!("{}[{i}]", table.member("command")))?;
        }
        if let Some(value) = table.get("env") {
            let env_table = table.table("env", value, &self.source)?;
            for (key, value) in env_table.entries() {
                let member = env_table.member(key.get_ref());
                if key.get_ref().is_empty() || key.get_ref().contains(['=', '\0']) {
                    let kind = CheckErrorKind::InvalidValue {
                        key: member,
                        message: "is not a valid environment variable name".to_owned(),
                    };
                    return Err(self.source.error(key.span(), kind));
                }
                let text = string(value, member.clone(), &self.source)?;
                self.check_process_string(text, &value.span(), member)?;
            }
        }
        if let Some(value) = table.get("network") {
            boolean(value, table.member("network"), &self.source)?;
        }
        if let Some(value) = table.get("syscalls") {
            for (i, (name, span)) in strings(value, &table.member("syscalls"), &self.source)?.into_iter().enumerate() {
                if name.parse::<SyscallGroup>().is_err() {
                    let known = SYSCALL_GROUPS.map(|group| group.to_string());
                    let suggestion = did_you_mean(name, known.iter().map(String::as_str))
                        .map_or_else(String::new, |close| format!(" (did you mean {close:?}?)"));
                    let kind = CheckErrorKind::InvalidValue {
                        key: format!("{}[{i}]", table.member("syscalls")),
                        message: format!(
                            "is {name:?}, which is not a group of system calls a worker may declare{suggestion}; \
                             they are {}",
                            known.join(", ")
                        ),
                    };
                    return Err(self.source.error(span, kind));
                }
            }
        }
        if let Some(value) = table.get("deterministic") {
            let text = string(value, table.member("deterministic"), &self.source)?;
            if text.parse::<definition::WorkerDeterministic>().is_err() {
                let kind = CheckErrorKind::InvalidValue {
                    key: table.member("deterministic"),
                    message: format!("is {text:?}, but must be \"seeded\" or \"seed-independent\""),
                };
                return Err(self.source.error(value.span(), kind));
            }
        }
        self.adapter_keys(table, &command, role_text)?;
        let identity_environment = self.identity_key(table)?;
        let python = self.python_key(table)?;
        let source_value = table.required("source", &self.source)?;
        let source = string(source_value, table.member("source"), &self.source)?;
        if source != "."
            && let Err(reason) = RelativePath::new(source)
        {
            let kind = CheckErrorKind::InvalidPath { key: table.member("source"), path: source.to_owned(), reason };
            return Err(self.source.error(source_value.span(), kind));
        }
        let mut include: Vec<(String, Range<usize>)> = Vec::new();
        if let Some(value) = table.get("include") {
            for (i, (path, span)) in strings(value, &table.member("include"), &self.source)?.into_iter().enumerate() {
                let key = format!("{}[{i}]", table.member("include"));
                if let Err(reason) = RelativePath::new(path) {
                    let kind = CheckErrorKind::InvalidPath { key, path: path.to_owned(), reason };
                    return Err(self.source.error(span, kind));
                }
                // The folder appears in the worker's copy under its last name: two alike, or one already a top-level
                // name of the source, would be one path for two contents.
                let name = include_name(path);
                let clash = if let Some((other, _)) = include.iter().find(|(other, _)| include_name(other) == name) {
                    Some(format!("has the same last name as {other:?}: both would be the copy's {name:?}"))
                } else if source == "." || within(path, source) || within(source, path) {
                    Some(format!("overlaps the worker's source directory {source:?}; include folders lie outside it"))
                } else {
                    None
                };
                if let Some(message) = clash {
                    return Err(self.source.error(span, CheckErrorKind::InvalidValue { key, message }));
                }
                include.push((path.to_owned(), span));
            }
        }
        // The checks above accept only what the schema accepts; the worker is built from the table decoded as its
        // generated type, and only the spans come from the checks.
        let worker: definition::Worker = table.decode(&self.source)?;
        Ok(DeclaredWorker {
            name,
            role: worker.role,
            command: worker.command.iter().map(|arg| String::clone(arg)).collect(),
            env: worker.env.into_iter().map(|(key, value)| (String::from(key), String::from(value))).collect(),
            network: worker.network.unwrap_or(false),
            syscalls: worker.syscalls.into_iter().collect(),
            // How its output depends on its seed: what the conformance kit's determinism check expects of it.
            seed_independent: worker.deterministic == Some(definition::WorkerDeterministic::SeedIndependent),
            adapter: worker.adapter.is_some(),
            result_data: worker.result_data.map(|path| String::clone(&path)),
            source: worker.source,
            source_span: source_value.span(),
            include: worker.include.into_iter().zip(include).map(|(path, (_, span))| (path, span)).collect(),
            identity_environment,
            python,
        })
    }

    /// The `identity` key: a list of what the worker's identity covers beyond its declaration and files, whose one
    /// entry is `"environment"`. Returns the span of that entry when it is declared.
    fn identity_key(&self, table: &Table<'_, '_>) -> Result<Option<Range<usize>>, CheckError> {
        let Some(value) = table.get("identity") else { return Ok(None) };
        let mut found = None;
        for (i, (entry, span)) in strings(value, &table.member("identity"), &self.source)?.into_iter().enumerate() {
            if entry.parse::<definition::WorkerIdentityItem>().is_err() {
                let suggestion = did_you_mean(entry, ["environment"])
                    .map_or_else(String::new, |close| format!(" (did you mean {close:?}?)"));
                let kind = CheckErrorKind::InvalidValue {
                    key: format!("{}[{i}]", table.member("identity")),
                    message: format!(
                        "is {entry:?}, which a worker's identity cannot cover{suggestion}; the one entry is \
                         \"environment\", the Python distributions its interpreter imports"
                    ),
                };
                return Err(self.source.error(span, kind));
            }
            found = Some(span);
        }
        Ok(found)
    }

    /// The digest of the Python environment the worker's program imports, for `identity = ["environment"]`: its
    /// program found as the spawn will find it (on the `PATH` it will have, or beneath its source directory), then
    /// read as the session reads it after hello. A program that is no Python interpreter, nor a script run by one,
    /// is refused at `span`.
    fn environment_digest(
        &self,
        name: &str,
        command: &[OsString],
        env: &BTreeMap<String, OsString>,
        source_path: &Path,
        span: &Range<usize>,
    ) -> Result<files::Sha256Digest, CheckError> {
        let path_var = env.get("PATH").cloned().or_else(|| std::env::var_os("PATH"));
        let found = metewand_environment::find_program(&command[0], source_path, path_var.as_deref());
        let resolved = found.as_deref().and_then(|path| std::fs::canonicalize(path).ok());
        let environment =
            metewand_environment::python_interpreter(found.as_deref(), resolved.as_deref(), path_var.as_deref())
                .and_then(|interpreter| metewand_environment::python_environment(&interpreter));
        environment.map(|environment| environment.digest).ok_or_else(|| {
            let kind = CheckErrorKind::InvalidValue {
                key: format!("workers.{name}.identity"),
                message: format!(
                    "names \"environment\", but the program {:?} is neither a Python interpreter with site-packages \
                     here nor a script run by one: remove the entry, or make the command start Python",
                    command[0]
                ),
            };
            self.source.error(span.clone(), kind)
        })
    }

    /// A declared worker made whole: its source directory and include folders hashed (beneath the loader's root,
    /// the repository or an external folder), its identity computed and `${repo}` expanded to that root.
    pub(super) fn checked_worker(
        &self,
        root_fd: std::os::fd::BorrowedFd<'_>,
        declared_worker: DeclaredWorker,
        options: &CheckOptions,
    ) -> Result<Worker, CheckError> {
        let folder = ("source directory", declared_worker.source.as_str(), &declared_worker.source_span);
        let tree = self.source_tree(root_fd, &declared_worker.name, folder, options)?;
        let mut includes = Vec::with_capacity(declared_worker.include.len());
        for (path, span) in &declared_worker.include {
            let folder = ("include folder", path.as_str(), span);
            let tree = self.source_tree(root_fd, &declared_worker.name, folder, options)?;
            let name = include_name(path).to_owned();
            includes.push(Include { path: path.clone(), name, tree });
        }
        for include in &includes {
            let prefix = format!("{}/", include.name);
            if let Some(file) =
                tree.files().iter().find(|file| file.path == include.name || file.path.starts_with(&prefix))
            {
                let (_, span) =
                    declared_worker.include.iter().find(|(path, _)| *path == include.path).expect("declared");
                let kind = CheckErrorKind::InvalidValue {
                    key: format!("workers.{}.include", declared_worker.name),
                    message: format!(
                        "names {:?}, but the source directory already has {:?}: the copy would hold both at one path",
                        include.path, file.path
                    ),
                };
                return Err(self.source.error(span.clone(), kind));
            }
        }
        let repo = self.root.as_os_str();
        let expanded_command: Vec<OsString> = declared_worker.command.iter().map(|arg| expand(arg, repo)).collect();
        let expanded_env: BTreeMap<String, OsString> =
            declared_worker.env.iter().map(|(k, v)| (k.clone(), expand(v, repo))).collect();
        let source_path =
            if declared_worker.source == "." { self.root.clone() } else { self.root.join(&declared_worker.source) };
        let python = match &declared_worker.python {
            Some((path, span)) => Some(self.requirements_file(root_fd, &declared_worker.name, path, span)?),
            None => None,
        };
        // A worker whose environment Metewand builds is identified by what it declares, not by an interpreter the
        // check could find: the environment may not be built yet, and is the same on every machine.
        let environment = match (&declared_worker.identity_environment, &python) {
            (Some(_), Some(requirements)) => Some(requirements.declaration_digest()),
            (Some(span), None) => Some(self.environment_digest(
                &declared_worker.name,
                &expanded_command,
                &expanded_env,
                &source_path,
                span,
            )?),
            (None, _) => None,
        };
        let identity = worker_identity(
            (&declared_worker.command, declared_worker.adapter, declared_worker.result_data.as_deref()),
            &declared_worker.env,
            (declared_worker.network, declared_worker.syscalls),
            declared_worker.role,
            (&tree, environment.as_ref()),
            &includes.iter().map(|include| (include.path(), include.tree())).collect::<Vec<_>>(),
        );
        let worker = Worker {
            expanded_command,
            expanded_env,
            source_path,
            environment,
            name: declared_worker.name.clone(),
            role: declared_worker.role,
            command: declared_worker.command,
            env: declared_worker.env,
            network: declared_worker.network,
            syscalls: declared_worker.syscalls,
            seed_independent: declared_worker.seed_independent,
            adapter: declared_worker.adapter,
            result_data: declared_worker.result_data.clone(),
            source: declared_worker.source,
            source_tree: tree,
            includes,
            identity,
            base: self.root.clone(),
            external: self.external.then(|| self.root.clone()),
            python,
        };
        Ok(worker)
    }

    /// The `python` table of a worker: its `requirements` file, a relative path, with its span.
    fn python_key(&self, table: &Table<'_, '_>) -> Result<Option<(String, Range<usize>)>, CheckError> {
        let Some(value) = table.get("python") else { return Ok(None) };
        let python = table.table("python", value, &self.source)?;
        python.only(definition::PythonEnvironment::PROPERTIES, &self.source)?;
        let requirements = python.required("requirements", &self.source)?;
        let key = python.member("requirements");
        let path = string(requirements, key.clone(), &self.source)?;
        if let Err(reason) = RelativePath::new(path) {
            let kind = CheckErrorKind::InvalidPath { key, path: path.to_owned(), reason };
            return Err(self.source.error(requirements.span(), kind));
        }
        Ok(Some((path.to_owned(), requirements.span())))
    }

    /// The requirements file `path` of worker `worker`, read beneath the loader's root without following links.
    fn requirements_file(
        &self,
        root_fd: std::os::fd::BorrowedFd<'_>,
        worker: &str,
        path: &str,
        span: &Range<usize>,
    ) -> Result<PythonRequirements, CheckError> {
        let unreadable = |problem: String| {
            let kind = CheckErrorKind::InvalidValue {
                key: format!("workers.{worker}.python.requirements"),
                message: format!("names {path:?}, which {problem}"),
            };
            self.source.error(span.clone(), kind)
        };
        let relative = RelativePath::new(path).expect("checked when read");
        let mut file = match open_beneath(root_fd, &relative) {
            Ok(file) => file,
            Err(OpenError::Missing) => return Err(unreadable("does not exist".to_owned())),
            Err(OpenError::SymbolicLink) => {
                return Err(unreadable("is a symbolic link (or lies under one)".to_owned()));
            }
            Err(OpenError::NotADirectory { found }) => return Err(unreadable(format!("lies under {found}"))),
            Err(OpenError::Io(error)) => return Err(unreadable(format!("cannot be opened: {error}"))),
        };
        let bytes =
            document::read_document(&mut file).map_err(|error| unreadable(format!("cannot be read: {error}")))?;
        let dependencies = if include_name(path) == "pyproject.toml" {
            Some(pyproject_dependencies(&bytes).map_err(|problem| unreadable(problem.to_owned()))?)
        } else {
            None
        };
        Ok(PythonRequirements { path: path.to_owned(), file: self.root.join(path), bytes, dependencies })
    }

    /// The keys of a command worker: `adapter` (the one adapter is `"command"`), the placeholders its `command`'s
    /// words hold, and `result_data` (a relative path, only with the adapter, never an evaluator's).
    fn adapter_keys(
        &self,
        table: &Table<'_, '_>,
        command: &[(&str, Range<usize>)],
        role_text: &str,
    ) -> Result<(), CheckError> {
        if let Some(value) = table.get("adapter") {
            let text = string(value, table.member("adapter"), &self.source)?;
            if text.parse::<definition::WorkerAdapter>().is_err() {
                let kind = CheckErrorKind::InvalidValue {
                    key: table.member("adapter"),
                    message: format!("is {text:?}, but the one adapter is \"command\""),
                };
                return Err(self.source.error(value.span(), kind));
            }
            for (i, (arg, span)) in command.iter().enumerate() {
                for name in metewand_adapter::placeholders_in(arg) {
                    if !metewand_adapter::PLACEHOLDERS.contains(&name) {
                        let suggestion = did_you_mean(name, metewand_adapter::PLACEHOLDERS)
                            .map_or_else(String::new, |close| format!(" (did you mean {{{close}}}?)"));
                        let kind = CheckErrorKind::InvalidValue {
                            key: format!("{}[{i}]", table.member("command")),
                            message: format!(
                                "holds {{{name}}}, which is not a placeholder of the command adapter{suggestion}; \
                             they are {}",
                                metewand_adapter::PLACEHOLDERS.map(|known| format!("{{{known}}}")).join(", ")
                            ),
                        };
                        return Err(self.source.error(span.clone(), kind));
                    }
                }
            }
        }
        if let Some(value) = table.get("result_data") {
            let key = table.member("result_data");
            let path = string(value, key.clone(), &self.source)?;
            let message = if table.get("adapter").is_none() {
                Some("is for a command worker: add adapter = \"command\", or leave the data to the worker".to_owned())
            } else if role_text == "problem_evaluator" {
                Some("is for a materializer or an implementation: an evaluator's command prints its verdict".to_owned())
            } else {
                None
            };
            if let Some(message) = message {
                return Err(self.source.error(value.span(), CheckErrorKind::InvalidValue { key, message }));
            }
            if let Err(reason) = RelativePath::new(path) {
                let kind = CheckErrorKind::InvalidPath { key, path: path.to_owned(), reason };
                return Err(self.source.error(value.span(), kind));
            }
        }
        Ok(())
    }
}

/// The `[project] dependencies` of a `pyproject.toml`, each a requirement as a requirements file would hold it.
fn pyproject_dependencies(bytes: &[u8]) -> Result<Vec<String>, &'static str> {
    let text = std::str::from_utf8(bytes).map_err(|_| "is not UTF-8 text")?;
    let document = toml::de::DeTable::parse(text).map_err(|_| "is not valid TOML")?;
    let dependencies = document
        .get_ref()
        .get("project")
        .and_then(|project| match project.get_ref() {
            DeValue::Table(table) => table.get("dependencies"),
            _ => None,
        })
        .ok_or("has no [project] dependencies array")?;
    let DeValue::Array(items) = dependencies.get_ref() else {
        return Err("has [project] dependencies that is not an array");
    };
    items
        .iter()
        .map(|item| match item.get_ref() {
            DeValue::String(requirement) => Ok(requirement.to_string()),
            _ => Err("has a [project] dependencies item that is not a string"),
        })
        .collect()
}
