package dev.knotless.runner.cli;

/** What {@code knotless-run --help} prints: every flag and variable, with its default. */
final class RunnerHelp {

  private RunnerHelp() {}

  /** The help text. */
  static final String TEXT =
      """
      usage: knotless-run [flags] <handle or did>/<name>...
             knotless-run secrets-key (init | show | rotate | retire) [--secrets-key <file> | --state <file>]
             knotless-run login <handle or did>    log the runner in with OAuth, in a browser
             knotless-run logout [<handle or did>] revoke that session and forget it

      Watches knotless repositories and runs their .knotless/workflows when a ref
      moves, filing each run as a dev.knotless.check record in its own account.

      flags:
        --state <file>          state file (default $XDG_STATE_HOME/knotless-run/state.json,
                                else ~/.local/state/knotless-run/state.json)
        --state-db <url>        keep the state in PostgreSQL instead of a file
                                (jdbc:postgresql://host[:port]/database; the tables are
                                made at start; not with --state; see docs/state.md)
        --work <dir>            where runs get their temporary directories
                                (default <tmp>/knotless-run)
        --jobs <n>              runs at once (4)
        --pull-jobs <n>         runs at once of every class but Main (half of --jobs)
        --owner-jobs <n>        runs at once of one owner (no cap)
        --step-timeout <s>      limit on each step, seconds (1800)
        --run-timeout <s>       limit on a run's steps together, seconds (none)
        --sweep <s>             ring every door this often, seconds (600)
        --poll <s>              ask private repositories' spaces what was written, seconds (10)
        --stop-wait <s>         on SIGTERM/SIGINT, wait this long for runs, seconds (900)
        --executor <name>       how steps run: docker (each run in a container of its own,
                                the default) or shell (sh -ec in a checkout, as this user;
                                only for repositories whose pushers you trust with the host)
        --image <ref>           image of a workflow that names none (debian:bookworm-slim)
        --cpus <n>              CPUs a run's container may use, such as 2 or 1.5 (no limit)
        --memory <GiB>          memory of a run's container, whole GiB, no swap (no limit)
        --pids <n>              processes a run's container may hold (no limit)
        --network <name>        network runs join, made if missing as a bridge whose
                                containers cannot reach each other (docker's default)
        --runtime <name>        container runtime of others' code, such as runsc
                                (the docker daemon's default runtime)
        --trusted-runtime <name>  runtime of code an owner named with --trust vouches for
                                (--runtime)
        --resolv <file>         file runs see as /etc/resolv.conf, read-only
        --cache-dir <dir>       keep workflows' caches here, overlays mounted as root
                                (none kept; docs/caches.md)
        --cache-max <GiB>       a cache's base larger than this is not kept (16)
        --disk-floor <GiB>      free space kept on the caches' disk before a run starts:
                                unread bases are shed, then the run waits (20; 0 for none)
        --trust <did>           an owner whose pushes run with --trusted-runtime (repeatable)
        --pulls                 also check each open pull, at its head merged with its base's
                                tip (needs KNOTLESS_APPVIEW and the docker executor; docs/pulls.md)
        --pulls-only            check only pulls: pushes are recorded as seen and left to
                                another runner the repository names; a pull runs again only
                                as its head moves (implies --pulls)
        --queue                 land the merge queue of each repository this runner's account
                                writes to: queued pulls stacked in batches on the branch tip,
                                checked once, landed in one push (needs --pulls; docs/merge.md)
        --batch <n>             the most queued pulls in one batch (8)
        --depth <n>             batches checked at once on a branch, each built ahead on the
                                one before and ranked Later (2)
        --notice <seconds>      how often the queue's records are read again; a change rings
                                the repository's door (30; with --queue)
        --log-json              log one JSON object a line, with the run and repository of
                                each line about a run (docs/metrics.md, Logs)
        --jetstream <url>       the Jetstream to follow (default the public one)
        --firehose <url>        follow a PDS's com.atproto.sync.subscribeRepos instead
                                (e.g. ws://127.0.0.1:2583)
        --secrets <file>        the operator's secrets file (docs/secrets.md)
        --secrets-key <file>    the runner's keys owners seal secrets to, made on the first
                                start, 0600 (default secrets-key.json beside --state; none
                                with --state-db unless named; docs/secrets.md)
        --discover              also watch every repository whose record names this runner,
                                as the appview lists them (needs KNOTLESS_APPVIEW), and the
                                private ones it is invited to (with KNOTLESS_SPACE_HOST)
        --paused <file>         the operator's paused owners (docs/scheduling.md)
        --keep-checks <days>    keep the default branch's checks this long (30; 0 prunes nothing)
        --allowance <min>       step minutes per owner per 30 days, public repositories
        --private-allowance <min>  the same for private repositories
        --unmetered <did>       an owner no allowance applies to (repeatable)
        --help, -h              this text
        --version               the version

      A flag's value goes after it or after an equals sign (--jobs 2, --jobs=2);
      -- ends the flags, so a repository after it may start with a dash.

      environment:
        KNOTLESS_IDENTIFIER     the runner's account (handle or DID)
        KNOTLESS_PASSWORD       its app password (never put it on the command line);
                                without one, the OAuth session knotless-run login saved
        KNOTLESS_CONFIG_DIR     where sessions are saved (default $XDG_CONFIG_HOME/knotless,
                                else ~/.config/knotless)
        KNOTLESS_OAUTH_SESSION  a saved OAuth session file (a mounted Secret) to start from
                                when the config directory holds none of the account
        KNOTLESS_PLC_URL        DID PLC directory (default https://plc.directory)
        KNOTLESS_HANDLE_RESOLVER  resolve handles by asking this server's
                                com.atproto.identity.resolveHandle (local *.test handles)
        KNOTLESS_ALLOW_LOCAL_SERVICES=true  also reach PDSes, directories and the
                                appview on loopback, over http (tests only)
        KNOTLESS_CACHE_DIR      the cache: mirrors, keys, identities (default
                                $XDG_CACHE_HOME/knotless, else ~/.cache/knotless)
        KNOTLESS_APPVIEW        the appview: where --pulls lists open pulls
                                (dev.knotless.listPulls), owners' sealed secrets are read
                                (dev.knotless.listSecrets), and live output goes
        KNOTLESS_STATE_DB_USER  the user --state-db connects as
        KNOTLESS_STATE_DB_PASSWORD  its password (never put it in the URL)
        DOCKER_HOST             the docker daemon (default unix:///var/run/docker.sock)

      Each run sees KNOTLESS_RUN_REPO (the label as given here), KNOTLESS_RUN_REF,
      KNOTLESS_RUN_SHA, KNOTLESS_RUN_BASE, KNOTLESS_RUN_OUTPUTS and the others
      docs/workflows.md lists.
      """;
}
