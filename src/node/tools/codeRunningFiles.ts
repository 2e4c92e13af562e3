/**
 * Files and folders that tools load as code, or as configuration that makes them run code, when
 * the user builds, tests, commits or merely opens the project. Writing one always asks, whatever
 * the approval settings say (protectedPaths.ts matches paths against this table).
 *
 * Patterns (matched case-insensitively, at any depth, so nested projects and case-insensitive file
 * systems are covered):
 * - `/`-separated segments, matched against the last segments of the path;
 * - a trailing `/` names a folder: the folder itself and everything inside it;
 * - `*` stands for any characters within a segment; `{a,b,}` for one of the alternatives
 *   (an empty one allowed).
 * `why` completes a sentence that starts with the path: "eslint.config.mjs is loaded as code by ESLint".
 * The first matching entry gives the reason, so specific entries come before general ones.
 *
 * Decided and left out on purpose:
 * - `.editorconfig`: editors read indentation and line endings from it; it names nothing to run.
 * - Go's `go.mod` and `go.work`: the go command runs no code from them (a `toolchain` line selects
 *   an official, checksum-verified Go release), and `//go:generate` lines in .go files run only
 *   on `go generate`, a command the user approves like any other.
 * - Ordinary source files: they run only when the user runs what they belong to.
 * - `tsconfig*.json` and `jsconfig*.json` ARE protected: their `compilerOptions.plugins` are
 *   language-service plugins that the editor's TypeScript server loads as code (with the
 *   workspace's TypeScript version), and build tools load the transformers they name.
 */
export interface CodeRunningFile {
  pattern: string;
  ecosystem: string;
  why: string;
}

export const CODE_RUNNING_FILES: readonly CodeRunningFile[] = [
  // JavaScript and TypeScript
  { pattern: 'eslint.config.{js,cjs,mjs,ts,cts,mts}', ecosystem: 'JavaScript', why: 'is loaded as code by ESLint' },
  { pattern: '*.config.{js,cjs,mjs,ts,cts,mts}', ecosystem: 'JavaScript', why: 'is loaded as code by the tool it configures (Vite, Jest, webpack, Tailwind…)' },
  { pattern: '*.config.json', ecosystem: 'JavaScript', why: 'names plugins and transforms that the tool it configures loads as code' },
  { pattern: 'package.json', ecosystem: 'JavaScript', why: 'has scripts that npm, yarn and pnpm run (install scripts run on every install)' },
  { pattern: '{package-lock.json,npm-shrinkwrap.json,yarn.lock,pnpm-lock.yaml,bun.lock,cargo.lock,gemfile.lock,poetry.lock,uv.lock,composer.lock,requirements*.txt}', ecosystem: 'Packages', why: 'chooses the exact packages (and where they are downloaded from) that get installed, and their install and build scripts run' },
  { pattern: '.npmrc', ecosystem: 'JavaScript', why: 'can set the shell and Node options npm runs scripts with' },
  { pattern: '.yarnrc{,.yml,.yaml}', ecosystem: 'JavaScript', why: 'can name a JavaScript file that Yarn runs in its own place (yarnPath) and plugins it loads' },
  { pattern: '.pnpmfile.{cjs,mjs}', ecosystem: 'JavaScript', why: 'is loaded as code by pnpm on every install' },
  { pattern: '{tsconfig,jsconfig}*.json', ecosystem: 'TypeScript', why: "names language-service plugins that the editor's TypeScript server loads as code" },
  { pattern: 'deno.{json,jsonc}', ecosystem: 'Deno', why: 'sets the tasks, import maps and permissions Deno runs with' },
  { pattern: 'bunfig.toml', ecosystem: 'Bun', why: 'can name scripts Bun preloads before running anything' },
  { pattern: '.*rc.{js,cjs,mjs,ts,cts,mts}', ecosystem: 'JavaScript', why: 'is loaded as code by the tool it configures (Mocha, Babel, Prettier…)' },
  { pattern: '.*rc.{json,yaml,yml}', ecosystem: 'JavaScript', why: 'names plugins that the tool it configures loads as code (ESLint, Babel, Mocha…)' },
  { pattern: '.irbrc', ecosystem: 'Ruby', why: 'is run as Ruby whenever irb starts' },
  { pattern: '.envrc', ecosystem: 'direnv', why: 'is run by the shell (direnv) on entering the folder' },
  { pattern: '.*rc', ecosystem: 'Tools', why: 'configures a tool that loads the plugins or commands it names (ESLint, Babel, npm, shells…)' },

  // Rust
  { pattern: 'Cargo.toml', ecosystem: 'Rust', why: 'chooses the build scripts and procedural macros that Cargo and rust-analyzer run' },
  { pattern: 'build.rs', ecosystem: 'Rust', why: 'is compiled and run by Cargo before the crate builds (rust-analyzer runs it on open)' },
  { pattern: '.cargo/config{,.toml}', ecosystem: 'Rust', why: 'can set the runner, linker and rustc wrapper that Cargo runs' },
  { pattern: 'rust-toolchain{,.toml}', ecosystem: 'Rust', why: 'chooses the toolchain rustup runs, which may be any local folder' },

  // Gradle and Maven
  { pattern: '*.gradle{,.kts}', ecosystem: 'Gradle', why: "is a build script run by Gradle (and by the editor's Java project import)" },
  { pattern: 'gradle.properties', ecosystem: 'Gradle', why: 'can set the JVM options (agents) Gradle starts with' },
  { pattern: 'gradle/wrapper/gradle-wrapper.{properties,jar}', ecosystem: 'Gradle', why: 'chooses the Gradle distribution the wrapper downloads and runs' },
  { pattern: 'gradlew{,.bat}', ecosystem: 'Gradle', why: 'is the script that starts Gradle' },
  { pattern: 'pom.xml', ecosystem: 'Maven', why: 'declares the plugins Maven runs during a build' },
  { pattern: '.mvn/', ecosystem: 'Maven', why: 'is inside .mvn/, whose extensions, JVM options and wrapper Maven loads and runs' },
  { pattern: 'mvnw{,.cmd}', ecosystem: 'Maven', why: 'is the script that starts Maven' },

  // Python
  { pattern: 'setup.py', ecosystem: 'Python', why: 'is run by pip and setuptools when the package is built or installed' },
  { pattern: 'setup.cfg', ecosystem: 'Python', why: 'can make setuptools import project modules while building (attr: values)' },
  { pattern: 'pyproject.toml', ecosystem: 'Python', why: 'names the build backend pip runs (it may live in the project) and tool plugins' },
  { pattern: 'conftest.py', ecosystem: 'Python', why: 'is imported as code by pytest when it collects tests' },
  { pattern: 'pytest.ini', ecosystem: 'Python', why: 'can make pytest load plugins as code (-p in addopts)' },
  { pattern: 'noxfile.py', ecosystem: 'Python', why: 'is run as code by nox' },
  { pattern: 'tox.ini', ecosystem: 'Python', why: 'lists the commands tox runs' },
  { pattern: '{site,user}customize.py', ecosystem: 'Python', why: 'is imported by Python at startup when it is on the path' },
  { pattern: '*.pth', ecosystem: 'Python', why: 'has import lines that Python runs at startup (in site-packages)' },
  { pattern: 'manage.py', ecosystem: 'Python', why: 'is run by every Django management command (runserver, test, migrate)' },

  // Ruby
  { pattern: 'Gemfile', ecosystem: 'Ruby', why: 'is evaluated as Ruby by Bundler' },
  { pattern: 'Rakefile', ecosystem: 'Ruby', why: 'is run as Ruby by rake' },
  { pattern: '*.gemspec', ecosystem: 'Ruby', why: 'is evaluated as Ruby by RubyGems and Bundler' },
  { pattern: '.rubocop.yml', ecosystem: 'Ruby', why: 'can make RuboCop require Ruby files as code' },

  // C and C++ builds
  { pattern: 'CMakeLists.txt', ecosystem: 'CMake', why: "is run by CMake when the project is configured (the editor's CMake Tools does it on open)" },
  { pattern: '*.cmake', ecosystem: 'CMake', why: 'is CMake code that a build includes' },
  { pattern: 'CMake{,User}Presets.json', ecosystem: 'CMake', why: 'sets the toolchain files, tools and environment CMake configures with' },
  { pattern: '{makefile,gnumakefile}', ecosystem: 'Make', why: 'lists the commands make runs' },
  { pattern: '*.mk', ecosystem: 'Make', why: 'is included by makefiles, whose commands make runs' },

  // git
  { pattern: '.git/', ecosystem: 'git', why: 'is inside .git/, whose hooks and configuration can run code' },
  { pattern: '.gitattributes', ecosystem: 'git', why: 'picks the filter and diff commands git runs on files' },
  { pattern: '.gitmodules', ecosystem: 'git', why: 'chooses the repositories git checks out as submodules' },
  { pattern: '.gitconfig', ecosystem: 'git', why: 'can set commands git runs (core.fsmonitor, core.hooksPath, aliases) once included' },
  { pattern: '.githooks/', ecosystem: 'git', why: 'is inside .githooks/, the usual folder of hooks git runs (core.hooksPath)' },
  { pattern: '.husky/', ecosystem: 'git', why: 'is inside .husky/, whose hooks git runs' },
  { pattern: '.pre-commit-config.yaml', ecosystem: 'git', why: 'lists the hooks pre-commit runs on each commit' },
  { pattern: '{.,}lefthook{,-local}.{yml,yaml}', ecosystem: 'git', why: 'lists the hooks lefthook runs' },

  // Continuous integration
  { pattern: '.github/workflows/', ecosystem: 'CI', why: 'is inside .github/workflows/, which GitHub Actions runs and which can run code' },
  { pattern: '.github/actions/', ecosystem: 'CI', why: 'is inside .github/actions/, actions that workflows run' },
  { pattern: '.gitlab-ci.yml', ecosystem: 'CI', why: 'is run by GitLab CI' },
  { pattern: '.circleci/', ecosystem: 'CI', why: 'is inside .circleci/, which CircleCI runs' },
  { pattern: 'azure-pipelines.{yml,yaml}', ecosystem: 'CI', why: 'is run by Azure Pipelines' },
  { pattern: 'Jenkinsfile', ecosystem: 'CI', why: 'is run by Jenkins' },
  { pattern: '.travis.yml', ecosystem: 'CI', why: 'is run by Travis CI' },
  { pattern: 'bitbucket-pipelines.yml', ecosystem: 'CI', why: 'is run by Bitbucket Pipelines' },
  { pattern: '.buildkite/', ecosystem: 'CI', why: 'is inside .buildkite/, which Buildkite runs' },

  // Containers
  { pattern: '.devcontainer/', ecosystem: 'Dev containers', why: 'is inside .devcontainer/, which sets the container and commands VS Code runs and can run code' },
  { pattern: '{.,}devcontainer.json', ecosystem: 'Dev containers', why: 'sets the container and the commands VS Code runs for the workspace' },
  { pattern: '{dockerfile,containerfile,dockerfile.*,containerfile.*,*.dockerfile}', ecosystem: 'Docker', why: 'lists the commands a container build runs' },
  { pattern: '{docker-,}compose{,.*}.{yml,yaml}', ecosystem: 'Docker', why: 'sets the images, mounts and commands docker compose runs' },

  // Environment files
  { pattern: '.env{,.*}', ecosystem: 'Environment', why: 'sets environment variables that tools load (NODE_OPTIONS or PYTHONSTARTUP can run code)' },
  { pattern: '.tool-versions', ecosystem: 'asdf / mise', why: 'picks the tool versions asdf and mise install and run' },
  { pattern: '{.,}mise{,.local}.toml', ecosystem: 'mise', why: 'can set the environment and hooks mise runs on entering the folder' },

  // Editors
  { pattern: '.vscode/', ecosystem: 'Editors', why: 'is inside .vscode/, whose tasks and settings can run code in VS Code' },
  { pattern: '*.code-workspace', ecosystem: 'Editors', why: 'holds VS Code settings and tasks, which can run code' },
  { pattern: '.idea/', ecosystem: 'Editors', why: 'is inside .idea/, whose run configurations and settings JetBrains IDEs use, which can run code' },
  { pattern: '.nvim.lua', ecosystem: 'Editors', why: 'is run by Neovim when it opens the folder (exrc)' },

  // Other build and task tools
  { pattern: 'composer.json', ecosystem: 'PHP', why: 'has scripts Composer runs on install and update' },
  { pattern: '*.{csproj,fsproj,vbproj,props,targets}', ecosystem: '.NET', why: "is MSBuild, whose tasks run during builds and the editor's design-time builds" },
  { pattern: 'nuget.config', ecosystem: '.NET', why: 'chooses the package sources NuGet installs from (packages carry build targets that run)' },
  { pattern: '*.nix', ecosystem: 'Nix', why: 'is Nix code, evaluated by nix develop, nix-shell and direnv' },
  { pattern: '{,.}justfile', ecosystem: 'just', why: 'lists the commands just runs' },
  { pattern: 'taskfile{,.dist}.{yml,yaml}', ecosystem: 'Task', why: 'lists the commands Task runs' },
];
