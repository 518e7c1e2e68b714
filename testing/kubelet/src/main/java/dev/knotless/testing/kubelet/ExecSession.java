package dev.knotless.testing.kubelet;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.api.model.StreamType;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * One exec, served as the v4.channel.k8s.io protocol over a WebSocket and run as a docker exec:
 * binary messages whose first byte is the channel (0 stdin, 1 stdout, 2 stderr, 3 the status JSON).
 * When the command ends its status goes on channel 3 and the socket closes; a socket the client
 * closes first closes the command's stdin and leaves the command running, as a kubelet does.
 */
final class ExecSession extends WebSocketListener {

  private static final byte[] EOF = new byte[0];

  private final DockerClient docker;
  private final String container;
  private final List<String> command = new ArrayList<>();
  private final boolean stdin;
  private final LinkedBlockingQueue<byte[]> input = new LinkedBlockingQueue<>();
  private final Runnable closed;
  private final KubeletTimes.Clock clock;
  private volatile WebSocket socket;

  ExecSession(
      DockerClient docker,
      String container,
      String query,
      Runnable closed,
      KubeletTimes times,
      String pod,
      long requested) {
    this.docker = docker;
    this.container = container;
    this.closed = closed;
    boolean in = false;
    for (String pair : query.split("&")) {
      int eq = pair.indexOf('=');
      String k = eq < 0 ? pair : pair.substring(0, eq);
      String v = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      if (k.equals("command")) {
        command.add(v);
      } else if (k.equals("stdin")) {
        in = v.equals("true");
      }
    }
    this.stdin = in;
    // sh -c SCRIPT NAME ...: the script's name says which exec it is.
    String name = command.size() > 3 ? command.get(3) : command.isEmpty() ? "" : command.get(0);
    this.clock = times.exec(pod, name, requested);
  }

  @Override
  public void onOpen(WebSocket ws, Response response) {
    socket = ws;
    try {
      start(ws);
    } catch (RuntimeException e) {
      // The container is gone (a node lost): the API server reports the exec as failed.
      status(ws, null, e);
    }
  }

  private void start(WebSocket ws) {
    long creating = System.nanoTime();
    String exec =
        docker
            .execCreateCmd(container)
            .withCmd(command.toArray(String[]::new))
            .withAttachStdin(stdin)
            .withAttachStdout(true)
            .withAttachStderr(true)
            .exec()
            .getId();
    clock.created = System.nanoTime();
    clock.createTook = clock.created - creating;
    var start = docker.execStartCmd(exec).withDetach(false).withTty(false);
    if (stdin) {
      start.withStdIn(new Input());
    }
    start.exec(
        new ResultCallback.Adapter<Frame>() {
          @Override
          public void onNext(Frame frame) {
            byte channel = frame.getStreamType() == StreamType.STDERR ? (byte) 2 : (byte) 1;
            byte[] p = frame.getPayload();
            byte[] msg = new byte[p.length + 1];
            msg[0] = channel;
            System.arraycopy(p, 0, msg, 1, p.length);
            ws.send(msg);
          }

          @Override
          public void onError(Throwable error) {
            status(ws, exec, error);
          }

          @Override
          public void onComplete() {
            clock.ended = System.nanoTime();
            status(ws, exec, null);
          }
        });
    clock.started = System.nanoTime();
  }

  private void status(WebSocket ws, String exec, Throwable error) {
    input.add(EOF);
    String json;
    Long code = null;
    if (exec != null) {
      try {
        code = docker.inspectExecCmd(exec).exec().getExitCodeLong();
      } catch (RuntimeException e) {
        error = error == null ? e : error;
      }
    }
    if (code != null && code == 0) {
      json = "{\"metadata\":{},\"status\":\"Success\"}";
    } else if (code != null) {
      json =
          "{\"metadata\":{},\"status\":\"Failure\",\"message\":\"command terminated with non-zero"
              + " exit code\",\"reason\":\"NonZeroExitCode\",\"details\":{\"causes\":"
              + "[{\"reason\":\"ExitCode\",\"message\":\""
              + code
              + "\"}]}}";
    } else {
      json =
          "{\"metadata\":{},\"status\":\"Failure\",\"message\":\"exec failed: "
              + String.valueOf(error).replace('"', '\'')
              + "\",\"reason\":\"InternalError\"}";
    }
    byte[] b = json.getBytes(StandardCharsets.UTF_8);
    byte[] msg = new byte[b.length + 1];
    msg[0] = 3;
    System.arraycopy(b, 0, msg, 1, b.length);
    ws.send(msg);
    clock.statusSent = System.nanoTime();
    ws.close(1000, "");
    closed.run();
  }

  /**
   * Drops the connection with no status, as a node that is lost drops its kubelet's: under runsc a
   * docker exec of a killed container may never end, where a node's connections do.
   */
  void drop() {
    WebSocket ws = socket;
    input.add(EOF);
    if (ws != null) {
      ws.close(1001, "node lost");
    }
    closed.run();
  }

  @Override
  public void onMessage(WebSocket ws, byte[] bytes) {
    if (bytes.length > 1 && bytes[0] == 0) {
      byte[] p = new byte[bytes.length - 1];
      System.arraycopy(bytes, 1, p, 0, p.length);
      input.add(p);
    }
  }

  @Override
  public void onClosed(WebSocket ws, int code, String reason) {
    input.add(EOF);
    closed.run();
  }

  @Override
  public void onFailure(WebSocket ws, Throwable t, Response response) {
    input.add(EOF);
    closed.run();
  }

  /** The exec's stdin: what the client sends on channel 0, ending when the socket closes. */
  private final class Input extends InputStream {
    private byte[] current = new byte[0];
    private int at;
    private boolean ended;

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      int n = read(one, 0, 1);
      return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      while (!ended && at >= current.length) {
        try {
          current = input.take();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException(e);
        }
        at = 0;
        ended = current == EOF;
      }
      if (ended) {
        return -1;
      }
      int n = Math.min(len, current.length - at);
      System.arraycopy(current, at, b, off, n);
      at += n;
      return n;
    }
  }
}
