package dev.knotless.runner.doorbell;

import java.util.OptionalLong;

/**
 * Where an event source keeps how far it has read, so a restart resumes near where it stopped. It
 * is only a saving: passes never depend on it, since every connection rings every door and the
 * sweep catches anything missed.
 */
public interface CursorStore {

  /** Keeps nothing: every start reads from now. */
  CursorStore NONE =
      new CursorStore() {
        @Override
        public OptionalLong load() {
          return OptionalLong.empty();
        }

        @Override
        public void seen(long cursor) {}

        @Override
        public void flush() {}
      };

  /** The cursor kept by an earlier run, if any. */
  OptionalLong load();

  /** The source has read up to {@code cursor}; the store may keep it later rather than now. */
  void seen(long cursor);

  /** Keeps the last cursor seen now, as the source closes. */
  void flush();
}
