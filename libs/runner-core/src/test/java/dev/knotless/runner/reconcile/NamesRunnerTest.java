package dev.knotless.runner.reconcile;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class NamesRunnerTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ME = "did:plc:runner";

  @Test
  void aRepositoryIsWatchedOnlyIfItsRecordNamesTheRunnerAndItIsNotArchived() throws Exception {
    assertEquals(
        NamesRunner.YES,
        NamesRunner.judge(ME, JSON.readTree("{\"runners\": [\"did:plc:other\", \"" + ME + "\"]}")));
    assertEquals(
        NamesRunner.NOT_NAMED,
        NamesRunner.judge(ME, JSON.readTree("{\"runners\": [\"did:plc:other\", 7]}")));
    assertEquals(NamesRunner.NOT_NAMED, NamesRunner.judge(ME, JSON.readTree("{}")));
    assertEquals(
        NamesRunner.NOT_NAMED,
        NamesRunner.judge(ME, JSON.readTree("{\"runners\": \"" + ME + "\"}")));
    assertEquals(
        NamesRunner.ARCHIVED,
        NamesRunner.judge(
            ME,
            JSON.readTree(
                "{\"runners\": [\"" + ME + "\"], \"archivedAt\": \"2026-12-01T00:00:00Z\"}")));
    assertEquals(NamesRunner.NO_RECORD, NamesRunner.judge(ME, null));
  }
}
