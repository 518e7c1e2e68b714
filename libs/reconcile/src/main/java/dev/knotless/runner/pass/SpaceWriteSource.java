package dev.knotless.runner.pass;

import java.io.IOException;

/** Where word of writes in spaces comes from: the appview ({@link SpaceWrites}), or a script. */
public interface SpaceWriteSource {
  /**
   * The writes after {@code cursor} (null: from now, which answers {@code missed}).
   *
   * @throws IOException when there is no answer, or it is refused
   */
  SpaceWrites.Reply await(String cursor) throws IOException;
}
