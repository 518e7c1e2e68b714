package dev.knotless.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * How {@link DistributedBench} prints what it measured: one table of the shapes beside the
 * all-in-one, the yardstick, each pod column followed by its ratio to it; then where the pod path
 * spends a push's time, the last push's API requests, and the PDS requests by method.
 */
final class DistributedTable {
  private static final String ROW = "%-46s";
  private static final String CELL = " %22s";
  private static final String RATIO = " %6s";

  /** One figure: as printed, and as a number for the ratio (NaN when there is none). */
  private record Cell(String text, double value) {
    static final Cell NONE = new Cell("", Double.NaN);
  }

  private DistributedTable() {}

  static void print(
      int count,
      TriggerBench.Pushes aioPushes,
      TriggerBench.Sweep aio,
      List<DistributedBench.Figured> shapes) {
    List<String> head = new ArrayList<>(List.of("measure", "all-in-one"));
    for (DistributedBench.Figured f : shapes) {
      head.add(name(f));
      head.add("ratio");
    }
    List<List<String>> rows = new ArrayList<>();
    rows.add(head);
    rows.add(
        row(
            "ref write -> check queued, median (max)",
            times(aioPushes.times().queued()),
            shapes,
            f -> times(f.times().queued())));
    rows.add(
        row(
            "ref write -> check running, median (max)",
            times(aioPushes.times().running()),
            shapes,
            f -> times(f.times().running())));
    rows.add(
        row(
            "ref write -> check success, median (max)",
            times(aioPushes.times().ended()),
            shapes,
            f -> times(f.times().ended())));
    rows.add(
        row(
            "pod made -> running (pod.start), median (max)",
            Cell.NONE,
            shapes,
            f ->
                f.podStart().length == 0
                    ? new Cell("not exported", Double.NaN)
                    : times(f.podStart())));
    rows.add(
        row(
            "PDS requests per push, to running",
            number("%.1f", aioPushes.requests()),
            shapes,
            f -> number("%.1f", f.requestsPerPush())));
    rows.add(
        row(
            "PDS requests per push, to the end",
            number("%.1f", aioPushes.requestsToEnd()),
            shapes,
            f -> number("%.1f", f.requestsToEnd())));
    rows.add(
        row(
            "every door of " + count + " rung: wall, median (max)",
            new Cell(Figures.seconds(aio.wallNanos()), aio.wallNanos()),
            shapes,
            f ->
                new Cell(
                    Figures.seconds(Figures.middle(f.rings().walls()))
                        + " ("
                        + Figures.seconds(Figures.largest(f.rings().walls()))
                        + ")",
                    Figures.middle(f.rings().walls()))));
    rows.add(
        row(
            "  passes per second, median (range)",
            new Cell(Figures.rate(count, aio.wallNanos()), count / (aio.wallNanos() / 1e9)),
            shapes,
            f ->
                new Cell(
                    rates(count, f.rings().walls()),
                    count / (Figures.middle(f.rings().walls()) / 1e9))));
    rows.add(
        row(
            "  PDS requests per pass",
            number("%.2f", (double) aio.requests() / count),
            shapes,
            f -> number("%.2f", f.rings().requestsPerPass())));
    rows.add(
        row(
            "  failed passes",
            Cell.NONE,
            shapes,
            f -> new Cell(Integer.toString(f.rings().failed()), Double.NaN)));
    rows.add(
        row(
            "start and first passes",
            new Cell(Figures.seconds(aio.start()), aio.start()),
            shapes,
            f -> new Cell(Figures.seconds(f.startNanos()), f.startNanos())));
    rows.forEach(DistributedTable::withRatios);

    System.out.println();
    List<List<String>> path = new ArrayList<>();
    List<String> pathHead = new ArrayList<>(List.of("pod path: ms after the mark before"));
    shapes.forEach(f -> pathHead.add(name(f)));
    path.add(pathHead);
    for (PodTimeline.Mark m : PodTimeline.Mark.values()) {
      List<String> r =
          new ArrayList<>(List.of((m.ordinal() == 0 ? "ref write -> " : "  -> ") + m.label));
      shapes.forEach(f -> r.add(times(f.timeline().stages().get(m)).text()));
      path.add(r);
    }
    List<String> end = new ArrayList<>(List.of("  -> check seen success"));
    shapes.forEach(f -> end.add(times(toEnd(f)).text()));
    path.add(end);
    path.forEach(DistributedTable::plain);

    if (!shapes.isEmpty()) {
      DistributedBench.Figured first = shapes.get(0);
      List<PodTimeline.Push> pushes = first.timeline().pushes();
      System.out.println();
      System.out.println(
          "the last push's requests to the API server for its pod ("
              + name(first)
              + "), ms after the ref write, its check seen success at "
              + Figures.ms(last(first.times().ended()))
              + ":");
      if (!pushes.isEmpty()) {
        pushes.get(pushes.size() - 1).requests().forEach(l -> System.out.println("  " + l));
      }
    }

    System.out.println();
    System.out.println("PDS requests per push to running, by method:");
    System.out.println("  all-in-one: " + aioPushes.byMethod());
    for (DistributedBench.Figured f : shapes) {
      System.out.println("  " + name(f) + ": " + f.byMethod());
    }
  }

  private static String name(DistributedBench.Figured f) {
    return "pods, " + f.reconcilers() + " reconciler" + (f.reconcilers() > 1 ? "s" : "");
  }

  /** Per push whose pod's deletion was seen, from it to the check seen ended. */
  private static long[] toEnd(DistributedBench.Figured f) {
    List<PodTimeline.Push> pushes = f.timeline().pushes();
    long[] ended = f.times().ended();
    List<Long> out = new ArrayList<>();
    for (int i = 0; i < pushes.size() && i < ended.length; i++) {
      Long deleted = pushes.get(i).after().get(PodTimeline.Mark.DELETED);
      if (deleted != null) {
        out.add(ended[i] - deleted);
      }
    }
    return out.stream().mapToLong(Long::longValue).toArray();
  }

  private static long last(long[] values) {
    return values.length == 0 ? 0 : values[values.length - 1];
  }

  private static List<String> row(
      String measure,
      Cell allInOne,
      List<DistributedBench.Figured> shapes,
      Function<DistributedBench.Figured, Cell> cell) {
    List<String> r = new ArrayList<>(List.of(measure, allInOne.text()));
    for (DistributedBench.Figured f : shapes) {
      Cell c = cell.apply(f);
      r.add(c.text());
      r.add(ratio(c.value(), allInOne.value()));
    }
    return r;
  }

  private static String ratio(double pods, double allInOne) {
    if (Double.isNaN(pods) || Double.isNaN(allInOne) || allInOne == 0) {
      return "";
    }
    return String.format("%.2fx", pods / allInOne);
  }

  /** A row of the first table: the all-in-one's cell, then each shape's and its ratio. */
  private static void withRatios(List<String> r) {
    StringBuilder line = new StringBuilder(String.format(ROW, r.get(0)));
    for (int i = 1; i < r.size(); i++) {
      // Columns: the all-in-one's, then each shape's figure and its ratio.
      line.append(String.format(i == 1 || i % 2 == 0 ? CELL : RATIO, r.get(i)));
    }
    System.out.println(line);
  }

  private static void plain(List<String> r) {
    StringBuilder line = new StringBuilder(String.format(ROW, r.get(0)));
    r.subList(1, r.size()).forEach(cell -> line.append(String.format(CELL, cell)));
    System.out.println(line);
  }

  /** The rate at the median time, and its range over the rings. */
  private static String rates(int count, long[] walls) {
    return Figures.rate(count, Figures.middle(walls))
        + " ("
        + Figures.rate(count, Figures.largest(walls))
        + "-"
        + Figures.rate(count, Figures.smallest(walls))
        + ")";
  }

  private static Cell times(long[] nanos) {
    if (nanos.length == 0) {
      return new Cell("not seen", Double.NaN);
    }
    return new Cell(Figures.median(nanos) + " (" + Figures.max(nanos) + ")", Figures.middle(nanos));
  }

  private static Cell number(String format, double value) {
    return new Cell(String.format(format, value), value);
  }
}
