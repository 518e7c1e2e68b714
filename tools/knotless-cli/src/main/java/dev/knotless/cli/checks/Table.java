package dev.knotless.cli.checks;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A plain text table: columns padded to their widest cell, two spaces apart, the last column left
 * unpadded. Cells may be styled (colour) after their width is taken. Not thread-safe.
 */
public final class Table {
  private final List<String[]> rows = new ArrayList<>();
  private final List<UnaryOperator<String>[]> styles = new ArrayList<>();
  private final int columns;

  public Table(String... head) {
    this.columns = head.length;
    add(head);
  }

  /** Adds a row of plain cells. */
  public Table add(String... cells) {
    @SuppressWarnings("unchecked")
    UnaryOperator<String>[] none = new UnaryOperator[columns];
    return add(cells, none);
  }

  /** Adds a row whose cells are styled by {@code style} (an entry may be null for plain). */
  public Table add(String[] cells, UnaryOperator<String>[] style) {
    if (cells.length != columns) {
      throw new IllegalArgumentException("a row of " + cells.length + " cells in " + columns);
    }
    rows.add(cells);
    styles.add(style);
    return this;
  }

  /** The table, one line each row, each ending in a newline. */
  public String render() {
    int[] w = new int[columns];
    for (String[] r : rows) {
      for (int i = 0; i < columns; i++) {
        w[i] = Math.max(w[i], r[i].length());
      }
    }
    StringBuilder b = new StringBuilder();
    for (int r = 0; r < rows.size(); r++) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < columns; i++) {
        String cell = rows.get(r)[i];
        UnaryOperator<String> st = styles.get(r)[i];
        line.append(st == null ? cell : st.apply(cell));
        if (i < columns - 1) {
          line.append(" ".repeat(w[i] - cell.length() + 2));
        }
      }
      b.append(line.toString().stripTrailing()).append('\n');
    }
    return b.toString();
  }
}
