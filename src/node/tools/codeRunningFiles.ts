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
 * The table is reviewed ecosystem by ecosystem against where each tool looks for its
 * configuration (its documented search: cosmiconfig's `.xrc.*` and `x.config.*` for JavaScript
 * tools, `pylintrc`/`mypy.ini`/`setup.cfg`/`tox.ini` for Python linters, and so on); each group says
 * why its files run code.
 *
 * Decided and left out on purpose:
 * - `.editorconfig`: editors read indentation and line endings from it; it names nothing to run.
 * - Go's `go.mod` and `go.work`: the go command runs no code from them (a `toolchain` line selects
 *   an official, checksum-verified Go release), and `//go:generate` lines in .go files run only
 *   on `go generate`, a command the user approves like any other.
 * - Ordinary source files (tests included): they run only when the user runs what they belong to.
 * - AGENTS.md and other instructions: the model reads them; nothing runs them.
 * - `.python-version`, `.node-version` and the like are here (they pick the interpreter that runs);
 *   lock files are here (they pick the packages whose install scripts run).
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
  // JavaScript and TypeScript: ESLint, Prettier, Babel, Mocha, Jest, Vite… find their settings by
  // cosmiconfig's search (`.xrc`, `.xrc.{json,yaml,yml,json5,toml,js,cjs,mjs,ts}`, `x.config.*`), and
  // the code forms are loaded as code, the data forms name plugins that are; editor extensions
  // (ESLint, Prettier, Jest) load them when a file is opened or saved.
  { pattern: 'eslint.config.{js,cjs,mjs,ts,cts,mts}', ecosystem: 'JavaScript', why: 'is loaded as code by ESLint' },
  { pattern: '*.config.{js,cjs,mjs,ts,cts,mts}', ecosystem: 'JavaScript', why: 'is loaded as code by the tool it configures (Vite, Jest, webpack, Tailwind…)' },
  { pattern: '*.config.{json,json5,jsonc}', ecosystem: 'JavaScript', why: 'names plugins and transforms that the tool it configures loads as code' },
  { pattern: '*.conf.{js,cjs,mjs,ts,cts,mts}', ecosystem: 'JavaScript', why: 'is loaded as code by the test runner it configures (Karma, WebdriverIO, Protractor)' },
  { pattern: '{gulpfile,gruntfile}{,.*}/', ecosystem: 'JavaScript', why: 'is run as code by gulp or Grunt' },
  { pattern: 'vitest.workspace.*', ecosystem: 'JavaScript', why: 'is loaded by Vitest, with the projects and plugins it names' },
  { pattern: '.storybook/', ecosystem: 'JavaScript', why: 'is inside .storybook/, whose main and preview files Storybook loads as code' },
  { pattern: '.vscode-test.{js,cjs,mjs,json}', ecosystem: 'JavaScript', why: 'is loaded by the VS Code extension test runner' },
  { pattern: '{angular,.angular-cli,nx,project,workspace,lerna,turbo}.json', ecosystem: 'JavaScript', why: 'names the builders, executors or commands the workspace tool runs' },
  { pattern: 'package.json', ecosystem: 'JavaScript', why: 'has scripts that npm, yarn and pnpm run (install scripts run on every install)' },
  { pattern: 'package.{yaml,json5}', ecosystem: 'JavaScript', why: 'is the package manifest pnpm reads instead of package.json, with its scripts' },
  { pattern: '{package-lock.json,npm-shrinkwrap.json,yarn.lock,pnpm-lock.yaml,bun.lock,bun.lockb,cargo.lock,gemfile.lock,gems.locked,poetry.lock,pdm.lock,uv.lock,pipfile.lock,composer.lock,requirements*.txt,constraints*.txt,flake.lock,mix.lock}', ecosystem: 'Packages', why: 'chooses the exact packages (and where they are downloaded from) that get installed, and their install and build scripts run' },
  // Package managers: settings that change how scripts run, and code they load by themselves.
  { pattern: '.npmrc', ecosystem: 'JavaScript', why: 'can set the shell and Node options npm runs scripts with' },
  { pattern: '.yarnrc{,.yml,.yaml}', ecosystem: 'JavaScript', why: 'can name a JavaScript file that Yarn runs in its own place (yarnPath) and plugins it loads' },
  { pattern: 'pnpm-workspace.yaml', ecosystem: 'JavaScript', why: 'sets the Node options, shell and hooks pnpm runs scripts with' },
  { pattern: '.pnpmfile.{cjs,mjs}', ecosystem: 'JavaScript', why: 'is loaded as code by pnpm on every install' },
  { pattern: '.pnp.{cjs,js,loader.mjs,data.json}', ecosystem: 'JavaScript', why: "is Plug'n'Play's loader, which Yarn and pnpm load into every script" },
  { pattern: '.yarn/', ecosystem: 'JavaScript', why: 'is inside .yarn/, which holds the Yarn release, plugins, patches and packages Yarn runs' },
  { pattern: 'node_modules/', ecosystem: 'JavaScript', why: 'is inside node_modules/, installed packages that scripts and editor extensions (ESLint, Prettier, TypeScript) load as code' },
  { pattern: '{tsconfig,jsconfig}*.json', ecosystem: 'TypeScript', why: "names language-service plugins that the editor's TypeScript server loads as code" },
  { pattern: 'deno.{json,jsonc}', ecosystem: 'Deno', why: 'sets the tasks, import maps and permissions Deno runs with' },
  { pattern: 'bunfig.toml', ecosystem: 'Bun', why: 'can name scripts Bun preloads before running anything' },
  { pattern: '{dangerfile,danger.config}{,.*}', ecosystem: 'JavaScript', why: 'is run as code by Danger' },
  { pattern: '.*rc.{js,cjs,mjs,ts,cts,mts}', ecosystem: 'JavaScript', why: 'is loaded as code by the tool it configures (Mocha, Babel, Prettier…)' },
  { pattern: '.*rc.{json,yaml,yml,json5,jsonc,toml}', ecosystem: 'JavaScript', why: 'names plugins that the tool it configures loads as code (ESLint, Babel, Mocha, Prettier…)' },
  { pattern: '.irbrc', ecosystem: 'Ruby', why: 'is run as Ruby whenever irb starts' },
  { pattern: '.envrc', ecosystem: 'direnv', why: 'is run by the shell (direnv) on entering the folder' },
  { pattern: '.*rc', ecosystem: 'Tools', why: 'configures a tool that loads the plugins or commands it names (ESLint, Babel, npm, pylint, shells…)' },

  // Rust: Cargo builds and runs build scripts and procedural macros, rust-analyzer does it on open
  // and runs the check and build commands its settings name.
  { pattern: 'Cargo.toml', ecosystem: 'Rust', why: 'chooses the build scripts and procedural macros that Cargo and rust-analyzer run' },
  { pattern: 'build.rs', ecosystem: 'Rust', why: 'is compiled and run by Cargo before the crate builds (rust-analyzer runs it on open)' },
  { pattern: '.cargo/config{,.toml}', ecosystem: 'Rust', why: 'can set the runner, linker and rustc wrapper that Cargo runs' },
  { pattern: 'rust-toolchain{,.toml}', ecosystem: 'Rust', why: 'chooses the toolchain rustup runs, which may be any local folder' },
  { pattern: '{.,}rust-analyzer.toml', ecosystem: 'Rust', why: 'can set the check and build-script commands rust-analyzer runs' },
  { pattern: '{makefile.toml,cross.toml}', ecosystem: 'Rust', why: 'lists the commands cargo-make or cross runs' },

  // Go: the go command runs no code from go.mod or go.work (see above); linters and release tools
  // load plugins and run hooks their settings name.
  { pattern: '.golangci.{yml,yaml,toml,json}', ecosystem: 'Go', why: 'can make golangci-lint load plugin code' },
  { pattern: '.goreleaser.{yml,yaml}', ecosystem: 'Go', why: 'lists hooks GoReleaser runs' },

  // Java and the JVM: Gradle and Maven run build logic and plugins (the editor's Java support
  // imports the project on open), sbt and Mill compile and run their builds, Ant runs its targets.
  { pattern: '*.gradle{,.kts}', ecosystem: 'Gradle', why: "is a build script run by Gradle (and by the editor's Java project import)" },
  { pattern: 'gradle.properties', ecosystem: 'Gradle', why: 'can set the JVM options (agents) Gradle starts with' },
  { pattern: 'gradle/wrapper/gradle-wrapper.{properties,jar}', ecosystem: 'Gradle', why: 'chooses the Gradle distribution the wrapper downloads and runs' },
  { pattern: 'gradlew{,.bat}', ecosystem: 'Gradle', why: 'is the script that starts Gradle' },
  { pattern: 'buildSrc/', ecosystem: 'Gradle', why: 'is inside buildSrc/, build logic Gradle compiles and runs with every build' },
  { pattern: '*.versions.toml', ecosystem: 'Gradle', why: 'chooses the libraries and plugins Gradle downloads and runs' },
  { pattern: 'pom.xml', ecosystem: 'Maven', why: 'declares the plugins Maven runs during a build' },
  { pattern: '.mvn/', ecosystem: 'Maven', why: 'is inside .mvn/, whose extensions, JVM options and wrapper Maven loads and runs' },
  { pattern: 'mvnw{,.cmd}', ecosystem: 'Maven', why: 'is the script that starts Maven' },
  { pattern: '{*.sbt,build.sc,build.mill,.jvmopts,.sbtopts,.mill-version}', ecosystem: 'Scala', why: 'is build code or JVM options that sbt and Mill run (Metals imports the build on open)' },
  { pattern: 'project/{*.scala,build.properties}', ecosystem: 'Scala', why: 'is build code or the sbt version that sbt runs (Metals imports the build on open)' },
  { pattern: '.bsp/', ecosystem: 'Scala', why: 'is inside .bsp/, which names the build server command the editor starts' },
  { pattern: '{build.xml,ant.properties}', ecosystem: 'Ant', why: 'lists the tasks Ant runs' },
  { pattern: '.factorypath', ecosystem: 'Java', why: "names the annotation processors the editor's Java compiler runs" },

  // Python: packaging runs setup code and build backends; pytest imports conftest and plugins;
  // pylint runs init-hook and loads plugins, mypy and flake8 load plugins (also from the editor's
  // Python extensions); pipenv runs Pipfile scripts; the interpreter runs .pth and customize files;
  // the editor's Python extension runs the interpreter of a virtual environment it finds.
  { pattern: 'setup.py', ecosystem: 'Python', why: 'is run by pip and setuptools when the package is built or installed' },
  { pattern: 'setup.cfg', ecosystem: 'Python', why: 'can make setuptools import project modules while building (attr: values), and configures linters that load plugins' },
  { pattern: 'pyproject.toml', ecosystem: 'Python', why: 'names the build backend pip runs (it may live in the project) and tool plugins' },
  { pattern: 'conftest.py', ecosystem: 'Python', why: 'is imported as code by pytest when it collects tests' },
  { pattern: '{.,}pytest.ini', ecosystem: 'Python', why: 'can make pytest load plugins as code (-p in addopts)' },
  { pattern: '{.,}pylintrc{,.toml}', ecosystem: 'Python', why: 'can make pylint run Python code (init-hook) and load plugins' },
  { pattern: '{.,}mypy.ini', ecosystem: 'Python', why: 'names plugins mypy loads as code' },
  { pattern: '.flake8', ecosystem: 'Python', why: 'can make flake8 load local plugins as code' },
  { pattern: 'Pipfile', ecosystem: 'Python', why: 'has scripts pipenv runs and chooses the packages it installs' },
  { pattern: 'noxfile.py', ecosystem: 'Python', why: 'is run as code by nox' },
  { pattern: 'tox.ini', ecosystem: 'Python', why: 'lists the commands tox runs' },
  { pattern: '{hatch.toml,pixi.toml,.pdm.toml,pdm.toml}', ecosystem: 'Python', why: 'lists scripts and environments the project tool runs' },
  { pattern: 'mkdocs.{yml,yaml}', ecosystem: 'Python', why: 'names hooks and plugins MkDocs loads as code' },
  { pattern: '{site,user}customize.py', ecosystem: 'Python', why: 'is imported by Python at startup when it is on the path' },
  { pattern: '*.pth', ecosystem: 'Python', why: 'has import lines that Python runs at startup (in site-packages)' },
  { pattern: 'manage.py', ecosystem: 'Python', why: 'is run by every Django management command (runserver, test, migrate)' },
  { pattern: '.venv/', ecosystem: 'Python', why: "is inside .venv/, whose interpreter and packages the editor's Python extension and every script run" },
  { pattern: 'pyvenv.cfg', ecosystem: 'Python', why: 'chooses the interpreter a virtual environment runs' },

  // Ruby: Bundler, rake, RuboCop and RSpec evaluate Ruby or require the files their settings name.
  { pattern: '{gemfile,gems.rb}', ecosystem: 'Ruby', why: 'is evaluated as Ruby by Bundler' },
  { pattern: '{rakefile,rakefile.rb,*.rake}', ecosystem: 'Ruby', why: 'is run as Ruby by rake' },
  { pattern: '*.gemspec', ecosystem: 'Ruby', why: 'is evaluated as Ruby by RubyGems and Bundler' },
  { pattern: '.rubocop*.yml', ecosystem: 'Ruby', why: 'can make RuboCop require Ruby files as code' },
  { pattern: '.rspec{,-local}', ecosystem: 'Ruby', why: 'holds options RSpec starts with (--require loads code)' },
  { pattern: '.bundle/', ecosystem: 'Ruby', why: 'is inside .bundle/, whose config chooses the Gemfile and paths Bundler uses' },
  { pattern: '{guardfile,capfile,brewfile,podfile,fastfile,vagrantfile,steepfile,config.ru}', ecosystem: 'Ruby', why: 'is evaluated as Ruby by the tool it belongs to (Guard, Capistrano, Homebrew, CocoaPods, fastlane, Vagrant, Rack)' },
  { pattern: '.solargraph.yml', ecosystem: 'Ruby', why: "names plugins the editor's Solargraph server loads" },

  // PHP: Composer runs scripts; test and analysis tools load bootstrap files and extensions (the
  // editor's PHP extensions run the formatters and analysers on save).
  { pattern: 'composer.json', ecosystem: 'PHP', why: 'has scripts Composer runs on install and update' },
  { pattern: '{phpunit.xml,phpunit.xml.dist,phpunit.dist.xml,phpstan.neon,phpstan.neon.dist,phpstan.dist.neon,psalm.xml,psalm.xml.dist,phpcs.xml,phpcs.xml.dist,.phpcs.xml,.phpcs.xml.dist,grumphp.yml,infection.json,infection.json5}', ecosystem: 'PHP', why: 'names bootstrap files and extensions the PHP tool loads as code' },
  { pattern: '{.php-cs-fixer.php,.php-cs-fixer.dist.php,.php_cs,.php_cs.dist,rector.php,ecs.php}', ecosystem: 'PHP', why: 'is PHP code the formatter or refactoring tool runs' },
  { pattern: 'artisan', ecosystem: 'PHP', why: 'is run by every Laravel artisan command' },

  // .NET: MSBuild files run tasks in builds and the editor's design-time builds; SDK and tool
  // manifests choose what gets downloaded and run; OmniSharp loads the analyzers it names.
  { pattern: '*.{csproj,fsproj,vbproj,vcxproj,sqlproj,shproj,wapproj,njsproj,pyproj,esproj,proj,props,targets,projitems}', ecosystem: '.NET', why: "is MSBuild, whose tasks run during builds and the editor's design-time builds" },
  { pattern: 'nuget.config', ecosystem: '.NET', why: 'chooses the package sources NuGet installs from (packages carry build targets that run)' },
  { pattern: 'global.json', ecosystem: '.NET', why: 'chooses the .NET SDK and MSBuild SDK packages that builds run' },
  { pattern: 'dotnet-tools.json', ecosystem: '.NET', why: 'chooses the tools dotnet tool run downloads and runs' },
  { pattern: '{omnisharp.json,*.cake}', ecosystem: '.NET', why: 'is code or settings (analyzer paths) that OmniSharp or Cake runs' },

  // C and C++, and other native builds: configuring the project runs its build code (the editor's
  // CMake Tools does it on open); package recipes are code.
  { pattern: 'CMakeLists.txt', ecosystem: 'CMake', why: "is run by CMake when the project is configured (the editor's CMake Tools does it on open)" },
  { pattern: '*.cmake', ecosystem: 'CMake', why: 'is CMake code that a build includes' },
  { pattern: 'CMake{,User}Presets.json', ecosystem: 'CMake', why: 'sets the toolchain files, tools and environment CMake configures with' },
  { pattern: '{makefile,gnumakefile,makefile.am,makefile.in,configure,configure.ac,configure.in}', ecosystem: 'Make', why: 'lists the commands make (or the configure step) runs' },
  { pattern: '*.mk', ecosystem: 'Make', why: 'is included by makefiles, whose commands make runs' },
  { pattern: '{meson.build,meson_options.txt,meson.options,sconstruct,sconscript,wscript,build.ninja,build.zig,build.zig.zon}', ecosystem: 'Builds', why: 'is build code Meson, SCons, waf, Ninja or Zig runs' },
  { pattern: '{build,build.bazel,workspace,workspace.bazel,module.bazel,*.bzl,buck,.buckconfig}', ecosystem: 'Bazel', why: 'is Starlark or settings that Bazel and Buck evaluate and run' },
  { pattern: '{conanfile.py,conanfile.txt,vcpkg.json,vcpkg-configuration.json}', ecosystem: 'C and C++', why: 'chooses the package recipes (code) Conan or vcpkg runs' },

  // Other languages whose build or tool settings are code, or name code to run.
  { pattern: 'package.swift', ecosystem: 'Swift', why: "is Swift code SwiftPM and the editor's SourceKit run to read the package" },
  { pattern: '{*.xcodeproj,*.xcworkspace}/', ecosystem: 'Swift', why: 'is inside an Xcode project, whose build phases run scripts' },
  { pattern: '{mix.exs,.formatter.exs,.credo.exs,.iex.exs}', ecosystem: 'Elixir', why: 'is Elixir code that mix, the formatter (ElixirLS on save) or iex runs' },
  { pattern: 'config/*.exs', ecosystem: 'Elixir', why: 'is Elixir configuration code mix runs with every command' },
  { pattern: '{setup.hs,setup.lhs,*.cabal,cabal.project,cabal.project.local,stack.yaml,hie.yaml}', ecosystem: 'Haskell', why: 'is build code or a cradle whose program Cabal, Stack or the Haskell language server runs' },
  { pattern: '{pubspec.yaml,analysis_options.yaml,build.yaml}', ecosystem: 'Dart', why: 'chooses the packages, builders and analyzer plugins that Dart and Flutter run' },
  { pattern: '{rebar.config,rebar.config.script}', ecosystem: 'Erlang', why: 'lists plugins and hooks rebar3 runs' },
  { pattern: '{makefile.pl,build.pl,cpanfile}', ecosystem: 'Perl', why: 'is Perl code run when the module is built or its dependencies installed' },
  { pattern: '*.rockspec', ecosystem: 'Lua', why: 'is Lua code LuaRocks evaluates' },
  { pattern: '{.rprofile,.renviron}', ecosystem: 'R', why: 'is run (or sets the profile run) whenever R starts in the folder' },

  // git and other version control: hooks and settings run programs on status, diff and commit.
  { pattern: '.git/', ecosystem: 'git', why: 'is inside .git/, whose hooks and configuration can run code' },
  { pattern: '.gitattributes', ecosystem: 'git', why: 'picks the filter and diff commands git runs on files' },
  { pattern: '.gitmodules', ecosystem: 'git', why: 'chooses the repositories git checks out as submodules' },
  { pattern: '.gitconfig', ecosystem: 'git', why: 'can set commands git runs (core.fsmonitor, core.hooksPath, aliases) once included' },
  { pattern: '.lfsconfig', ecosystem: 'git', why: 'can set the transfer programs Git LFS runs' },
  { pattern: '.githooks/', ecosystem: 'git', why: 'is inside .githooks/, the usual folder of hooks git runs (core.hooksPath)' },
  { pattern: '.husky/', ecosystem: 'git', why: 'is inside .husky/, whose hooks git runs' },
  { pattern: '{.pre-commit-config.yaml,.pre-commit-hooks.yaml,.overcommit.yml}', ecosystem: 'git', why: 'lists the hooks pre-commit or overcommit runs on each commit' },
  { pattern: '{.,}lefthook{,-local}.{yml,yaml}', ecosystem: 'git', why: 'lists the hooks lefthook runs' },
  { pattern: '{.hg,.jj}/', ecosystem: 'Mercurial and Jujutsu', why: 'is inside the repository folder of Mercurial or Jujutsu, whose settings (hooks, extensions) run code' },
  { pattern: '.hgsub', ecosystem: 'Mercurial and Jujutsu', why: 'chooses the subrepositories Mercurial checks out' },

  // Continuous integration: pipelines run what they list.
  { pattern: '.github/workflows/', ecosystem: 'CI', why: 'is inside .github/workflows/, which GitHub Actions runs and which can run code' },
  { pattern: '.github/actions/', ecosystem: 'CI', why: 'is inside .github/actions/, actions that workflows run' },
  { pattern: 'action.{yml,yaml}', ecosystem: 'CI', why: 'defines a GitHub Action that workflows of this repository run' },
  { pattern: '{.gitea,.forgejo}/workflows/', ecosystem: 'CI', why: 'is inside a workflows folder, which Gitea or Forgejo Actions runs' },
  { pattern: '.gitlab-ci.yml', ecosystem: 'CI', why: 'is run by GitLab CI' },
  { pattern: '.gitlab/', ecosystem: 'CI', why: 'is inside .gitlab/, whose CI templates pipelines include' },
  { pattern: '.circleci/', ecosystem: 'CI', why: 'is inside .circleci/, which CircleCI runs' },
  { pattern: 'azure-pipelines.{yml,yaml}', ecosystem: 'CI', why: 'is run by Azure Pipelines' },
  { pattern: 'Jenkinsfile', ecosystem: 'CI', why: 'is run by Jenkins' },
  { pattern: '.travis.yml', ecosystem: 'CI', why: 'is run by Travis CI' },
  { pattern: 'bitbucket-pipelines.yml', ecosystem: 'CI', why: 'is run by Bitbucket Pipelines' },
  { pattern: '.buildkite/', ecosystem: 'CI', why: 'is inside .buildkite/, which Buildkite runs' },
  { pattern: '{.drone.yml,.woodpecker.yml,appveyor.yml,.appveyor.yml,.cirrus.yml,codemagic.yaml,cloudbuild.yaml,cloudbuild.yml,cloudbuild.json,buildspec.yml,.mega-linter.yml,.checkov.yml,.checkov.yaml,trivy.yaml,.gomplate.yaml}', ecosystem: 'CI', why: 'is a pipeline or CI tool setting that runs the commands or plugins it lists' },
  { pattern: '{.woodpecker,.semaphore}/', ecosystem: 'CI', why: 'is inside a pipeline folder that Woodpecker or Semaphore runs' },

  // Containers and development environments: what they build and start runs commands.
  { pattern: '.devcontainer/', ecosystem: 'Dev containers', why: 'is inside .devcontainer/, which sets the container and commands VS Code runs and can run code' },
  { pattern: '{.,}devcontainer.json', ecosystem: 'Dev containers', why: 'sets the container and the commands VS Code runs for the workspace' },
  { pattern: '{dockerfile,containerfile,dockerfile.*,containerfile.*,*.dockerfile}', ecosystem: 'Docker', why: 'lists the commands a container build runs' },
  { pattern: '{docker-,}compose{,.*}.{yml,yaml}', ecosystem: 'Docker', why: 'sets the images, mounts and commands docker compose runs' },
  { pattern: '{procfile,earthfile,tiltfile,skaffold.yaml,devbox.json,devenv.yaml,flox.toml}', ecosystem: 'Dev environments', why: 'lists the commands the process manager or development environment runs' },

  // Environment and toolchain versions: variables that load code, and the interpreter that runs.
  { pattern: '.env{,.*}', ecosystem: 'Environment', why: 'sets environment variables that tools load (NODE_OPTIONS or PYTHONSTARTUP can run code)' },
  { pattern: '{.tool-versions,.node-version,.python-version,.ruby-version,.java-version,.terraform-version,.sdkmanrc}', ecosystem: 'Toolchains', why: 'picks the tool versions the version manager installs and runs' },
  { pattern: '{.,}mise{,.local}.toml', ecosystem: 'mise', why: 'can set the environment and hooks mise runs on entering the folder' },

  // Shells: startup files run when a shell starts in a workspace that is a home folder.
  { pattern: '{.profile,.bash_profile,.bash_login,.bash_logout,.zshenv,.zprofile,.zlogin,.zlogout,config.fish}', ecosystem: 'Shells', why: 'is run by the shell when it starts' },
  { pattern: '.ssh/', ecosystem: 'Shells', why: 'is inside .ssh/, whose config can set the commands ssh runs (ProxyCommand) when git reaches a server' },
  { pattern: '.config/git/', ecosystem: 'git', why: "is inside .config/git/, git's user configuration, which can set commands git runs" },

  // Editors: settings, tasks and workspace files editors and their extensions act on.
  { pattern: '.vscode/', ecosystem: 'Editors', why: 'is inside .vscode/, whose tasks and settings can run code in VS Code' },
  { pattern: '*.code-workspace', ecosystem: 'Editors', why: 'holds VS Code settings and tasks, which can run code' },
  { pattern: '.idea/', ecosystem: 'Editors', why: 'is inside .idea/, whose run configurations and settings JetBrains IDEs use, which can run code' },
  { pattern: '.nvim.lua', ecosystem: 'Editors', why: 'is run by Neovim when it opens the folder (exrc)' },
  { pattern: '{.dir-locals.el,.dir-locals-2.el}', ecosystem: 'Editors', why: 'sets Emacs variables for the folder, which can hold code (eval)' },
  { pattern: '{.zed,.helix,.fleet}/', ecosystem: 'Editors', why: 'is inside an editor settings folder, whose tasks and language-server commands the editor runs' },
  { pattern: '*.sublime-project', ecosystem: 'Editors', why: 'sets the build systems Sublime Text runs' },

  // Coding agents (Tally's own and others'): agents and commands choose the tools and commands
  // that run, hooks run commands, MCP settings start servers.
  { pattern: '.tally/', ecosystem: 'Tally', why: "is inside .tally/, Tally's agents, skills, hooks and commands, which choose the tools and commands the agent runs" },
  { pattern: '.github/{prompts,chatmodes,agents}/', ecosystem: 'Coding agents', why: 'is a prompt file, chat mode or agent that chooses the tools a coding agent runs' },
  { pattern: '{.claude,.cursor,.gemini,.continue,.amazonq,.roo,.kiro,.windsurf,.codex}/', ecosystem: 'Coding agents', why: "is inside another coding agent's folder, whose settings, hooks and MCP servers run commands" },
  { pattern: '.mcp.json', ecosystem: 'Coding agents', why: 'lists MCP servers that coding agents start as commands' },

  // Other build and task tools.
  { pattern: '*.nix', ecosystem: 'Nix', why: 'is Nix code, evaluated by nix develop, nix-shell and direnv' },
  { pattern: '{,.}justfile', ecosystem: 'just', why: 'lists the commands just runs' },
  { pattern: 'taskfile{,.dist}.{yml,yaml}', ecosystem: 'Task', why: 'lists the commands Task runs' },
];
