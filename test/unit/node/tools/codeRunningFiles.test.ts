import { strict as assert } from 'assert';
import { mkdtempSync, readFileSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { builtinTools } from '../../../../src/core/tools/builtin';
import type { ApprovalRequest } from '../../../../src/core/tools/types';
import { CODE_RUNNING_FILES } from '../../../../src/node/tools/codeRunningFiles';
import { protectedReason } from '../../../../src/node/tools/protectedPaths';
import { runOptions, testRegistry } from '../../../support/toolRegistry';

// Written by hand, not from the data file: concrete paths a user's tools load as code, or as
// configuration that runs code. Each must make a write ask.
const MUST_ASK = [
  // JavaScript and TypeScript
  'eslint.config.mjs', 'packages/web/eslint.config.ts', 'vite.config.ts', 'jest.config.cjs', 'apps/site/tailwind.config.js', 'vitest.config.mts',
  'jest.config.json', 'package.json', 'packages/a/Package.JSON', 'package-lock.json', 'yarn.lock', 'pnpm-lock.yaml', 'Cargo.lock', 'requirements.txt', 'requirements-dev.txt',
  '.npmrc', '.yarnrc', '.yarnrc.yml', '.pnpmfile.cjs', 'tsconfig.json', 'tsconfig.build.json', 'packages/x/jsconfig.json',
  'deno.json', 'deno.jsonc', 'bunfig.toml', '.mocharc.js', '.babelrc.cjs', '.prettierrc.mjs', '.eslintrc.json', '.mocharc.yml', '.irbrc', '.envrc', '.eslintrc', '.babelrc',
  // Rust
  'Cargo.toml', 'crates/core/build.rs', '.cargo/config.toml', '.cargo/config', 'rust-toolchain', 'rust-toolchain.toml',
  // Gradle and Maven
  'settings.gradle', 'app/build.gradle', 'build.gradle.kts', 'gradle.properties', 'gradle/wrapper/gradle-wrapper.properties', 'gradle/wrapper/gradle-wrapper.jar', 'gradlew', 'gradlew.bat',
  'pom.xml', '.mvn/extensions.xml', '.mvn/wrapper/maven-wrapper.properties', 'mvnw', 'mvnw.cmd',
  // Python
  'setup.py', 'setup.cfg', 'pyproject.toml', 'tests/conftest.py', 'pytest.ini', 'noxfile.py', 'tox.ini', 'sitecustomize.py', 'usercustomize.py', '.venv/lib/python3.12/site-packages/evil.pth', 'manage.py',
  // Ruby
  'Gemfile', 'Rakefile', 'mygem.gemspec', '.rubocop.yml',
  // CMake and Make
  'CMakeLists.txt', 'cmake/toolchain.cmake', 'CMakePresets.json', 'CMakeUserPresets.json', 'Makefile', 'GNUmakefile', 'makefile', 'build/rules.mk',
  // git
  '.git', '.git/config', '.GIT/hooks/pre-commit', '.gitattributes', '.gitmodules', '.gitconfig', '.githooks/pre-push', '.husky/pre-commit', '.pre-commit-config.yaml', 'lefthook.yml', '.lefthook.yaml', 'lefthook-local.yml',
  // CI
  '.github/workflows/ci.yml', '.GitHub/Workflows/x.yml', '.github/actions/setup/action.yml', '.gitlab-ci.yml', '.circleci/config.yml', 'azure-pipelines.yml', 'Jenkinsfile', '.travis.yml', 'bitbucket-pipelines.yml', '.buildkite/pipeline.yml',
  // Containers
  '.devcontainer/devcontainer.json', '.devcontainer.json', 'tools/devcontainer.json', 'Dockerfile', 'docker/Dockerfile.dev', 'Containerfile', 'web.dockerfile', 'docker-compose.yml', 'compose.yaml', 'docker-compose.override.yml',
  // Environment
  '.env', '.env.local', 'services/api/.env.production', '.tool-versions', '.mise.toml', 'mise.toml',
  // Editors
  '.vscode/settings.json', '.VSCode/tasks.json', 'a\\b\\.vscode\\launch.json', 'project.code-workspace', '.idea/workspace.xml', '.nvim.lua',
  // Others
  'composer.json', 'src/App/App.csproj', 'Directory.Build.props', 'Directory.Build.targets', 'nuget.config', 'NuGet.Config', 'flake.nix', 'shell.nix', 'default.nix',
  'justfile', 'Justfile', '.justfile', 'Taskfile.yml', 'taskfile.yaml',  // Reviewed by ecosystem: JavaScript task runners and test configs, package managers' own code, Python
  // linters, other languages' builds, version control, CI, shells, editors and coding agents.
  'karma.conf.js', 'gulpfile.js', 'gulpfile.js/index.js', 'Gruntfile.coffee', 'vitest.workspace.ts', '.storybook/main.ts', '.vscode-test.mjs', 'angular.json', 'nx.json',
  'package.yaml', 'bun.lockb', 'Pipfile.lock', 'constraints.txt', 'pnpm-workspace.yaml', '.pnp.cjs', '.pnp.loader.mjs', '.yarn/releases/yarn-4.1.0.cjs',
  '.yarn/plugins/@yarnpkg/plugin-x.cjs', 'node_modules/left-pad/index.js', 'Dangerfile', 'dangerfile.ts', '.prettierrc.toml', '.prettierrc.json5', '.pylintrc',
  'rust-analyzer.toml', 'Makefile.toml', '.golangci.yml', '.goreleaser.yaml', 'buildSrc/src/main/kotlin/conventions.kt', 'gradle/libs.versions.toml', 'build.sbt',
  'project/plugins.sbt', 'project/Build.scala', 'project/build.properties', '.jvmopts', '.bsp/sbt.json', 'build.xml', '.factorypath', 'pylintrc', '.pylintrc.toml',
  'mypy.ini', '.mypy.ini', '.flake8', 'Pipfile', '.pytest.ini', 'pixi.toml', 'mkdocs.yml', '.venv/bin/python', 'pyvenv.cfg', 'gems.rb', 'lib/tasks/db.rake',
  '.rubocop_todo.yml', '.rspec', '.bundle/config', 'Podfile', 'Vagrantfile', 'config.ru', '.solargraph.yml', 'phpunit.xml.dist', 'phpstan.neon',
  '.php-cs-fixer.dist.php', 'artisan', 'Build.proj', 'native.vcxproj', 'global.json', '.config/dotnet-tools.json', 'omnisharp.json', 'build.cake', 'Makefile.am',
  'configure.ac', 'configure', 'meson.build', 'build.zig', 'BUILD.bazel', 'MODULE.bazel', 'defs.bzl', 'conanfile.py', 'vcpkg.json', 'Package.swift',
  'App.xcodeproj/project.pbxproj', 'mix.exs', '.formatter.exs', 'config/config.exs', 'hie.yaml', 'stack.yaml', 'pkg.cabal', 'analysis_options.yaml', 'pubspec.yaml',
  'rebar.config', 'Makefile.PL', 'cpanfile', 'x-1.0-1.rockspec', '.Rprofile', '.lfsconfig', '.overcommit.yml', '.hg/hgrc', '.hgsub', '.jj/repo/config.toml',
  'action.yml', '.gitea/workflows/ci.yml', '.forgejo/workflows/ci.yml', '.gitlab/ci/templates.yml', '.drone.yml', 'cloudbuild.yaml', '.woodpecker/build.yml', 'Procfile',
  'Tiltfile', 'devbox.json', '.node-version', '.python-version', '.bash_profile', '.zshenv', '.config/fish/config.fish', '.ssh/config', '.config/git/config',
  '.dir-locals.el', '.zed/tasks.json', '.helix/languages.toml', 'x.sublime-project', '.tally/agents/helper.md', '.tally/skills/deploy/SKILL.md', '.tally/hooks.json',
  '.tally/commands/review.md', '.github/prompts/fix.prompt.md', '.github/chatmodes/plan.chatmode.md', '.claude/settings.json', '.cursor/mcp.json',
  '.gemini/settings.json', '.mcp.json',
];

// Names close to those above that run nothing: writing them follows the user's settings.
const NEAR_MISSES = [
  'src/config.ts', 'config.js', 'docs/makefile.md', '..env', '..env.local', '.environment', 'src/env.ts', '.editorconfig', '.gitignore', 'go.mod', 'go.work', 'main.go',
  'src/app.ts', 'README.md', 'LICENSE', 'package.json.md', 'docs/package-json.md', '.github/ISSUE_TEMPLATE.md', '.github/dependabot.yml', 'docs/git.md',
  'vscode/notes.txt', 'my.vscode/x.txt', 'src/gradle.ts', 'notes/cargo.md', 'docs/Dockerfile-guide.md', 'src/build.rs.bak', 'src/setup.py.txt', 'docs/tsconfig-notes.md',
  'src/manage.ts', 'src/compose.ts', 'docs/justfile.md', 'src/rc', 'git/config', 'workflows/ci.yml',
];

describe('files that run code: every write asks', function () {
  this.timeout(30_000);

  for (const path of MUST_ASK) {
    it(`protects ${path}`, () => assert.ok(protectedReason(path), path));
  }

  for (const path of NEAR_MISSES) {
    it(`does not protect ${path}`, () => assert.equal(protectedReason(path), undefined, path));
  }

  it('every entry of the table has at least one example above, and each entry says its ecosystem and why', () => {
    for (const entry of CODE_RUNNING_FILES) {
      assert.ok(entry.ecosystem && entry.why, entry.pattern);
      const example = MUST_ASK.find((path) => protectedReason(path) === `${path.split(/[\\/]/).filter(Boolean).join('/')} ${entry.why}`);
      assert.ok(example, `no example path above gives the reason of ${entry.pattern}`);
    }
  });

  it('says which tool runs the file', () => {
    assert.equal(protectedReason('eslint.config.mjs'), 'eslint.config.mjs is loaded as code by ESLint');
    assert.match(protectedReason('.cargo/config.toml') ?? '', /^\.cargo\/config\.toml .*Cargo/);
    assert.match(protectedReason('gradle/wrapper/gradle-wrapper.properties') ?? '', /Gradle/);
  });

  describe('through the write tool, with the user setting edits: always', () => {
    let ws: string;
    let asked: ApprovalRequest[];
    beforeEach(() => {
      ws = mkdtempSync(join(tmpdir(), 'tally-code-files-'));
      asked = [];
    });
    afterEach(() => rmSync(ws, { recursive: true, force: true }));

    it('asks before writing .cargo/config.toml, eslint.config.mjs, .mocharc.js, settings.gradle or gradle-wrapper.properties, and writes nothing when denied', async () => {
      const runner = testRegistry({
        tools: builtinTools(),
        folders: [ws],
        policy: { commands: 'always', edits: 'always' },
        ask: async (request) => (asked.push(request), { approved: false }),
      });
      const paths = ['.cargo/config.toml', 'eslint.config.mjs', '.mocharc.js', 'settings.gradle', 'gradle/wrapper/gradle-wrapper.properties'];
      for (const [i, path] of paths.entries()) {
        const result = await runner.run({ id: `c${i}`, name: 'write_file', arguments: JSON.stringify({ path, content: 'x' }) }, runOptions());
        assert.equal(result.denied, true, path);
        assert.throws(() => readFileSync(join(ws, path)), `${path} was not written`);
      }
      assert.deepEqual(asked.map((r) => r.reason?.split(' ')[2]), paths);
      assert.match(asked[1].title, /Asking because eslint\.config\.mjs is loaded as code by ESLint\./);
    });
  });
});
