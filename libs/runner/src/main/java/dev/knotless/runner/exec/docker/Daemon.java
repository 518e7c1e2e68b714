package dev.knotless.runner.exec.docker;

import com.github.dockerjava.api.exception.DockerException;

/** How the daemon's failures read in a check's log: the cause, in a line. Stateless. */
final class Daemon {

  private Daemon() {}

  /** What the daemon said, without the client's decoration. */
  static String why(Throwable e) {
    if (e instanceof DockerException d) {
      String body = d.getMessage() == null ? "" : d.getMessage();
      // The client prefixes "Status 404: " and wraps the daemon's JSON {"message":"..."}.
      int at = body.indexOf("\"message\":\"");
      if (at >= 0) {
        int end = body.indexOf('"', at + 11);
        if (end > at) {
          return body.substring(at + 11, end);
        }
      }
      return body.strip();
    }
    return e.getMessage() == null ? e.toString() : e.getMessage();
  }

  /** A daemon that did not answer, named by where the runner looked for it. */
  static String unreachable(String host, Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String cause = root.getMessage() == null ? root.toString() : root.getMessage();
    return "could not reach the docker daemon at " + host + ": " + cause;
  }
}
