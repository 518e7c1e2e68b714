package dev.knotless.runner.schedule;

import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeSet;

/**
 * Waiting runs in rank order: by class, then owner turn (round), then submission order.
 *
 * <p>Each class keeps one line per owner and kind of repository (public or private), each in rank
 * order, and the lines sorted by their first run. Walking a class merges the lines lazily, so
 * admitting a few runs from 100,000 waiting touches a few lines, not every run, and a line whose
 * owner is capped is skipped whole. Not thread-safe.
 */
final class RankedQueue {

  private static final Comparator<Line> BY_HEAD =
      (a, b) -> Entry.RANK.compare(a.entries.first(), b.entries.first());

  private final EnumMap<RunClass, ClassQueue> classes = new EnumMap<>(RunClass.class);
  private int size;

  RankedQueue() {
    for (RunClass c : RunClass.values()) {
      classes.put(c, new ClassQueue());
    }
  }

  /**
   * Adds a run at its owner's turn: the turn after the owner's last run still waiting in the class,
   * or, with none waiting, the turn of the last run of the class to start.
   */
  void add(Entry e) {
    ClassQueue cq = classes.get(e.request.runClass());
    Line line = cq.lines.computeIfAbsent(key(e), k -> new Line());
    Line other = cq.lines.get(new LineKey(e.owner(), !e.request.privateRepo()));
    long last = Long.MIN_VALUE;
    if (!line.entries.isEmpty()) {
      last = line.entries.last().round;
    }
    if (other != null && !other.entries.isEmpty()) {
      last = Math.max(last, other.entries.last().round);
    }
    e.round = last == Long.MIN_VALUE ? cq.lastStartedRound : last + 1;
    if (!line.entries.isEmpty()) {
      cq.byHead.remove(line);
    }
    line.entries.add(e);
    cq.byHead.add(line);
    size++;
  }

  /** Removes a waiting run (started or cancelled). */
  void remove(Entry e) {
    ClassQueue cq = classes.get(e.request.runClass());
    LineKey key = key(e);
    Line line = cq.lines.get(key);
    if (line == null || !line.entries.contains(e)) {
      return;
    }
    cq.byHead.remove(line);
    line.entries.remove(e);
    size--;
    if (line.entries.isEmpty()) {
      cq.lines.remove(key);
    } else {
      cq.byHead.add(line);
    }
  }

  /** Removes a run that starts now, which sets the class's turn for owners with none waiting. */
  void started(Entry e) {
    remove(e);
    classes.get(e.request.runClass()).lastStartedRound = e.round;
  }

  int size() {
    return size;
  }

  /** A walk over the class's waiting runs in rank order. Do not change the queue meanwhile. */
  Walk walk(RunClass runClass) {
    return new Walk(classes.get(runClass).byHead.iterator());
  }

  private static LineKey key(Entry e) {
    return new LineKey(e.owner(), e.request.privateRepo());
  }

  private record LineKey(String owner, boolean privateRepo) {}

  private static final class Line {
    final TreeSet<Entry> entries = new TreeSet<>(Entry.RANK);
  }

  private static final class ClassQueue {
    final TreeSet<Line> byHead = new TreeSet<>(BY_HEAD);
    final Map<LineKey, Line> lines = new HashMap<>();
    long lastStartedRound;
  }

  /** A lazy k-way merge of a class's lines, which can skip the rest of a line. */
  static final class Walk {
    private final Iterator<Line> lines;
    private final PriorityQueue<Cursor> cursors =
        new PriorityQueue<>((a, b) -> Entry.RANK.compare(a.current, b.current));
    private Line pending;
    private Cursor last;
    private boolean dropLast;

    private Walk(Iterator<Line> lines) {
      this.lines = lines;
      this.pending = lines.hasNext() ? lines.next() : null;
    }

    /** The next waiting run in rank order, or null at the end. */
    Entry next() {
      if (last != null && !dropLast && last.it.hasNext()) {
        last.current = last.it.next();
        cursors.add(last);
      }
      last = null;
      dropLast = false;
      Cursor c;
      if (pending != null
          && (cursors.isEmpty()
              || Entry.RANK.compare(pending.entries.first(), cursors.peek().current) < 0)) {
        c = new Cursor(pending);
        pending = lines.hasNext() ? lines.next() : null;
      } else if (!cursors.isEmpty()) {
        c = cursors.poll();
      } else {
        return null;
      }
      last = c;
      return c.current;
    }

    /** Skips the rest of the line of the run last returned: its owner is capped for this pass. */
    void dropLine() {
      dropLast = true;
    }
  }

  private static final class Cursor {
    final Iterator<Entry> it;
    Entry current;

    Cursor(Line line) {
      this.it = line.entries.iterator();
      this.current = it.next();
    }
  }
}
