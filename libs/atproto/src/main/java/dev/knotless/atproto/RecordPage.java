package dev.knotless.atproto;

import java.util.List;

/**
 * One page of {@code com.atproto.repo.listRecords}.
 *
 * @param records the records, in the order the server listed them
 * @param cursor the cursor for the next page, or null; the reference PDS returns one even on the
 *     last page, so a short page is what ends a scan
 */
public record RecordPage(List<Record> records, String cursor) {
  public RecordPage {
    records = List.copyOf(records);
  }
}
