package dev.knotless.bench;

import dev.knotless.runner.pass.PassTrace;
import dev.knotless.runner.pass.PassTrace.Stage;
import dev.knotless.testing.CountingProxy;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The timed trace of each push's way to a running check, from the runner's own marks ({@link
 * PassTrace}) and the counting proxy's record of the requests made on the way. The floor of a push
 * is the time at least one of the runner's requests was in flight between the ref write and the
 * check filed running: the PDS round trips the path made, with overlapping ones counted once.
 */
final class TriggerTrace implements PassTrace {

  /** One push: when its ref was written, the first time each stage was reached, its requests. */
  record Push(long wrote, Map<Stage, Long> marks, List<CountingProxy.Span> spans) {
    /** Milliseconds from {@code a} to {@code b}, or -1 when either was not reached. */
    long between(Stage a, Stage b) {
      Long x = a == null ? Long.valueOf(wrote) : marks.get(a);
      Long y = marks.get(b);
      return x == null || y == null ? -1 : (y - x) / 1_000_000;
    }

    /** The time the runner waited on the PDS, overlapping requests counted once. */
    long floorMillis() {
      List<CountingProxy.Span> s = new ArrayList<>(spans);
      s.sort(Comparator.comparingLong(CountingProxy.Span::startNanos));
      long total = 0;
      long end = Long.MIN_VALUE;
      for (CountingProxy.Span x : s) {
        long from = Math.max(x.startNanos(), end);
        if (x.endNanos() > from) {
          total += x.endNanos() - from;
        }
        end = Math.max(end, x.endNanos());
      }
      return total / 1_000_000;
    }

    int roundTrips() {
      List<CountingProxy.Span> s = new ArrayList<>(spans);
      s.sort(Comparator.comparingLong(CountingProxy.Span::startNanos));
      int trips = 0;
      long end = Long.MIN_VALUE;
      for (CountingProxy.Span x : s) {
        if (x.startNanos() >= end) {
          trips++;
        }
        end = Math.max(end, x.endNanos());
      }
      return trips;
    }
  }

  private final Map<Stage, Long> marks = new ConcurrentHashMap<>();
  private final List<Push> pushes = new ArrayList<>();
  private volatile long wrote;

  @Override
  public void reached(Stage stage, String repo, long nanos) {
    marks.putIfAbsent(stage, nanos);
  }

  /** Before a push: forgets the marks of the last. */
  void clear() {
    marks.clear();
  }

  void pushed(long wroteNanos) {
    this.wrote = wroteNanos;
  }

  /**
   * The check was seen running: keeps this push's marks, and the proxy's requests made from the ref
   * write to the check filed running.
   */
  void atRunning(CountingProxy proxy) throws InterruptedException {
    // The poller may see the check running before the runner has the write's answer.
    for (int i = 0; i < 100 && !marks.containsKey(Stage.RUNNING); i++) {
      Thread.sleep(10);
    }
    long until = marks.getOrDefault(Stage.RUNNING, System.nanoTime());
    List<CountingProxy.Span> on =
        proxy.spans().stream()
            .filter(s -> s.startNanos() >= wrote && s.startNanos() <= until)
            .toList();
    pushes.add(new Push(wrote, new EnumMap<>(marks), on));
  }

  List<Push> pushes() {
    return List.copyOf(pushes);
  }

  /** Column heads and what each measures: from the stage before (or the ref write) to this. */
  private static final Object[][] COLUMNS = {
    {"delivery", null, Stage.FRAME},
    {"to pass", Stage.FRAME, Stage.PASS},
    {"snapshot", Stage.PASS, Stage.SNAPSHOT},
    {"mirror", Stage.SNAPSHOT, Stage.MIRROR},
    {"workflows", Stage.MIRROR, Stage.WORKFLOWS},
    {"queued", Stage.WORKFLOWS, Stage.QUEUED},
    {"job", Stage.QUEUED, Stage.JOB},
    {"running", Stage.JOB, Stage.RUNNING},
    {"write>run", null, Stage.RUNNING},
    {"frame>run", Stage.FRAME, Stage.RUNNING},
  };

  /** The per-push trace and the medians, in milliseconds; {@code title} heads it. */
  void print(String title) {
    System.out.println();
    System.out.println("trace " + title + " (ms; each column from the stage before)");
    StringBuilder head = new StringBuilder(String.format("%-6s", "push"));
    for (Object[] c : COLUMNS) {
      head.append(String.format(" %9s", c[0]));
    }
    head.append(String.format(" %9s %6s %5s", "PDS floor", "trips", "reqs"));
    head.append(String.format(" %7s", "x floor"));
    System.out.println(head);
    int n = pushes.size();
    long[][] cols = new long[COLUMNS.length + 4][n];
    for (int i = 0; i < n; i++) {
      Push p = pushes.get(i);
      StringBuilder row = new StringBuilder(String.format("%-6s", i + 1));
      for (int c = 0; c < COLUMNS.length; c++) {
        long v = p.between((Stage) COLUMNS[c][1], (Stage) COLUMNS[c][2]);
        cols[c][i] = v;
        row.append(String.format(" %9d", v));
      }
      long floor = p.floorMillis();
      cols[COLUMNS.length][i] = floor;
      cols[COLUMNS.length + 1][i] = p.roundTrips();
      cols[COLUMNS.length + 2][i] = p.spans().size();
      long frameToRun = cols[COLUMNS.length - 1][i];
      cols[COLUMNS.length + 3][i] = floor == 0 ? 0 : frameToRun * 100 / floor;
      row.append(
          String.format(
              " %9d %6d %5d %7s",
              floor, p.roundTrips(), p.spans().size(), ratio(frameToRun, floor)));
      System.out.println(row);
      System.out.println("       requests: " + requests(p));
    }
    StringBuilder med = new StringBuilder(String.format("%-6s", "median"));
    for (int c = 0; c < COLUMNS.length; c++) {
      med.append(String.format(" %9d", Figures.middle(cols[c])));
    }
    med.append(
        String.format(
            " %9d %6d %5d %7s",
            Figures.middle(cols[COLUMNS.length]),
            Figures.middle(cols[COLUMNS.length + 1]),
            Figures.middle(cols[COLUMNS.length + 2]),
            String.format("%.2f", Figures.middle(cols[COLUMNS.length + 3]) / 100.0)));
    System.out.println(med);
  }

  /** Median of one column over the pushes, from {@code a} (null: the ref write) to {@code b}. */
  long median(Stage a, Stage b) {
    long[] v = pushes.stream().mapToLong(p -> p.between(a, b)).toArray();
    return v.length == 0 ? -1 : Figures.middle(v);
  }

  long medianFloor() {
    long[] v = pushes.stream().mapToLong(Push::floorMillis).toArray();
    return v.length == 0 ? -1 : Figures.middle(v);
  }

  private static String ratio(long value, long floor) {
    return floor <= 0 || value < 0 ? "-" : String.format("%.2f", (double) value / floor);
  }

  /** Each request: method, ms from the ref write to its arrival at the proxy, and its length. */
  private static String requests(Push p) {
    StringBuilder b = new StringBuilder();
    p.spans().stream()
        .sorted(Comparator.comparingLong(CountingProxy.Span::startNanos))
        .forEach(
            s ->
                b.append(Figures.shortName(s.method()))
                    .append(" @")
                    .append((s.startNanos() - p.wrote()) / 1_000_000)
                    .append('+')
                    .append((s.endNanos() - s.startNanos()) / 1_000_000)
                    .append("  "));
    return b.toString().strip();
  }
}
