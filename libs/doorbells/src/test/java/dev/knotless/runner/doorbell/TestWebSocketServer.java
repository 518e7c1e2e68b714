package dev.knotless.runner.doorbell;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A minimal RFC 6455 WebSocket server on 127.0.0.1 for tests: the opening handshake, text frames
 * both ways, ping/pong and close. It can stop answering pings, to play a half-open connection, and
 * drop every connection, to play a network cut. Not for production; thread-safe enough for tests.
 */
final class TestWebSocketServer implements AutoCloseable {
  private static final String GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

  private final ServerSocket server;
  private final Thread acceptor;
  private final List<Peer> peers = new CopyOnWriteArrayList<>();
  private final List<String> targets = new CopyOnWriteArrayList<>();
  private final List<String> received = new CopyOnWriteArrayList<>();
  private final AtomicInteger pings = new AtomicInteger();
  private volatile boolean answerPings = true;

  TestWebSocketServer() throws IOException {
    server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    acceptor = new Thread(this::accept, "test-ws-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** {@code ws://127.0.0.1:<port>/subscribe}. */
  URI url() {
    return URI.create("ws://127.0.0.1:" + server.getLocalPort() + "/subscribe");
  }

  /** The request target (path and query) of every handshake so far. */
  List<String> targets() {
    return List.copyOf(targets);
  }

  /** Handshakes completed so far. */
  int connections() {
    return targets.size();
  }

  /** Text messages received from clients. */
  List<String> received() {
    return List.copyOf(received);
  }

  /** Pings received from clients. */
  int pings() {
    return pings.get();
  }

  /** Whether pings get a pong; when false the server also stays quiet, as a half-open socket. */
  void answerPings(boolean answer) {
    this.answerPings = answer;
  }

  /** Sends a text frame to every open connection. */
  void sendText(String text) throws IOException {
    for (Peer peer : peers) {
      peer.send(0x1, text.getBytes(StandardCharsets.UTF_8));
    }
  }

  /** Sends a binary frame to every open connection. */
  void sendBinary(byte[] bytes) throws IOException {
    for (Peer peer : peers) {
      peer.send(0x2, bytes);
    }
  }

  /**
   * Sends a text message that never ends: a first fragment and then continuation frames, none
   * final, {@code bytes} in all, to every open connection.
   */
  void sendUnendedText(long bytes) throws IOException {
    byte[] chunk = new byte[1 << 16];
    java.util.Arrays.fill(chunk, (byte) 'x');
    for (Peer peer : peers) {
      int opcode = 0x1;
      for (long sent = 0; sent < bytes; sent += chunk.length) {
        try {
          peer.sendFragment(opcode, chunk);
        } catch (IOException closed) {
          break; // the client gave the connection up, as it should
        }
        opcode = 0x0;
      }
    }
  }

  /** Cuts every open connection without a close frame. */
  void dropAll() throws IOException {
    for (Peer peer : peers) {
      peer.socket.close();
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    dropAll();
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket socket = server.accept();
        Peer peer = new Peer(socket);
        Thread thread = new Thread(peer::serve, "test-ws-peer");
        thread.setDaemon(true);
        thread.start();
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private final class Peer {
    final Socket socket;
    private OutputStream out;

    Peer(Socket socket) {
      this.socket = socket;
    }

    void serve() {
      try (socket) {
        InputStream in = socket.getInputStream();
        out = socket.getOutputStream();
        handshake(in);
        peers.add(this);
        frames(new DataInputStream(in));
      } catch (IOException e) {
        // The client went away or the test dropped it.
      } finally {
        peers.remove(this);
      }
    }

    private void handshake(InputStream in) throws IOException {
      ByteArrayOutputStream head = new ByteArrayOutputStream();
      int matched = 0;
      byte[] end = {'\r', '\n', '\r', '\n'};
      while (matched < 4) {
        int b = in.read();
        if (b < 0) {
          throw new IOException("client closed during the handshake");
        }
        head.write(b);
        matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
      }
      String[] lines = head.toString(StandardCharsets.ISO_8859_1).split("\r\n");
      String target = lines[0].split(" ")[1];
      String key = null;
      for (String line : lines) {
        int colon = line.indexOf(':');
        if (colon > 0
            && line.substring(0, colon)
                .trim()
                .toLowerCase(Locale.ROOT)
                .equals("sec-websocket-key")) {
          key = line.substring(colon + 1).trim();
        }
      }
      if (key == null) {
        out.write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".getBytes());
        throw new IOException("no Sec-WebSocket-Key");
      }
      String accept = Base64.getEncoder().encodeToString(sha1(key + GUID));
      out.write(
          ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  + "Sec-WebSocket-Accept: "
                  + accept
                  + "\r\n\r\n")
              .getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      targets.add(target);
    }

    private void frames(DataInputStream in) throws IOException {
      List<byte[]> fragments = new ArrayList<>();
      while (true) {
        int first = in.readUnsignedByte();
        int second = in.readUnsignedByte();
        boolean fin = (first & 0x80) != 0;
        int opcode = first & 0x0F;
        long length = second & 0x7F;
        if (length == 126) {
          length = in.readUnsignedShort();
        } else if (length == 127) {
          length = in.readLong();
        }
        byte[] mask = new byte[4];
        if ((second & 0x80) != 0) {
          in.readFully(mask);
        }
        byte[] payload = new byte[Math.toIntExact(length)];
        in.readFully(payload);
        for (int i = 0; i < payload.length; i++) {
          payload[i] ^= mask[i % 4];
        }
        switch (opcode) {
          case 0x0, 0x1 -> {
            fragments.add(payload);
            if (fin) {
              ByteArrayOutputStream whole = new ByteArrayOutputStream();
              fragments.forEach(whole::writeBytes);
              fragments.clear();
              received.add(whole.toString(StandardCharsets.UTF_8));
            }
          }
          case 0x8 -> {
            send(0x8, payload);
            return;
          }
          case 0x9 -> {
            pings.incrementAndGet();
            if (answerPings) {
              send(0xA, payload);
            }
          }
          default -> {
            // pongs and binary frames: nothing to do
          }
        }
      }
    }

    synchronized void send(int opcode, byte[] payload) throws IOException {
      write(0x80 | opcode, payload);
    }

    /** A frame that is not the last of its message. */
    synchronized void sendFragment(int opcode, byte[] payload) throws IOException {
      write(opcode, payload);
    }

    private void write(int first, byte[] payload) throws IOException {
      ByteArrayOutputStream frame = new ByteArrayOutputStream();
      frame.write(first);
      if (payload.length < 126) {
        frame.write(payload.length);
      } else if (payload.length < 65536) {
        frame.write(126);
        frame.write(payload.length >>> 8);
        frame.write(payload.length & 0xFF);
      } else {
        frame.write(127);
        for (int shift = 56; shift >= 0; shift -= 8) {
          frame.write((int) ((long) payload.length >>> shift) & 0xFF);
        }
      }
      frame.writeBytes(payload);
      out.write(frame.toByteArray());
      out.flush();
    }
  }

  private static byte[] sha1(String text) {
    try {
      return MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.ISO_8859_1));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is required by every JDK", e);
    }
  }
}
