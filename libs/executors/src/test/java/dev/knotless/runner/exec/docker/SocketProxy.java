package dev.knotless.runner.exec.docker;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A unix socket in front of the docker daemon's, which a test can cut: every connection through it
 * is closed and no new one is taken, as when the daemon goes away mid-run.
 */
final class SocketProxy implements AutoCloseable {

  private final ServerSocketChannel server;
  private final Path daemon;
  private final List<SocketChannel> open = new CopyOnWriteArrayList<>();
  private boolean isCut;

  private SocketProxy(ServerSocketChannel server, Path daemon) {
    this.server = server;
    this.daemon = daemon;
  }

  static SocketProxy start(Path socket, Path daemon) throws IOException {
    ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    server.bind(UnixDomainSocketAddress.of(socket));
    SocketProxy proxy = new SocketProxy(server, daemon);
    Thread accept = new Thread(proxy::accept, "socket-proxy");
    accept.setDaemon(true);
    accept.start();
    return proxy;
  }

  private void accept() {
    while (server.isOpen()) {
      try {
        SocketChannel client = server.accept();
        if (!keep(client)) {
          return;
        }
        SocketChannel upstream = SocketChannel.open(UnixDomainSocketAddress.of(daemon));
        if (!keep(upstream)) {
          return;
        }
        pump(client, upstream);
        pump(upstream, client);
      } catch (IOException closed) {
        return;
      }
    }
  }

  /** Holds a connection for a later cut, or closes it if the cut came first. */
  private synchronized boolean keep(SocketChannel c) throws IOException {
    if (isCut) {
      c.close();
      return false;
    }
    open.add(c);
    return true;
  }

  private void pump(SocketChannel from, SocketChannel to) {
    Thread t =
        new Thread(
            () -> {
              ByteBuffer buffer = ByteBuffer.allocate(1 << 16);
              try {
                while (from.read(buffer) >= 0) {
                  buffer.flip();
                  while (buffer.hasRemaining()) {
                    to.write(buffer);
                  }
                  buffer.clear();
                }
                to.shutdownOutput();
              } catch (IOException cut) {
                // The other side is gone, or the test cut the proxy.
              }
            },
            "socket-proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  /** Closes every connection and takes no more. */
  synchronized void cut() throws IOException {
    isCut = true;
    server.close();
    for (SocketChannel c : open) {
      c.close();
    }
  }

  @Override
  public void close() throws IOException {
    cut();
  }
}
