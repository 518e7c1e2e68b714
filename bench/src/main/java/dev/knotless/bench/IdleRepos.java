package dev.knotless.bench;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Tid;
import dev.knotless.atproto.Write;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.testing.Account;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * Many watched repositories, made cheaply: {@code dev.knotless.repo} records with no refs, all in
 * one owner's account, written 200 to an {@code applyWrites}. A pass of one reads its record and
 * its (empty) refs and runs nothing, which is what an idle sweep costs.
 */
final class IdleRepos {
  /** One of them: its record key (the name) and its repository key. */
  record Repo(String name, String key) {}

  private IdleRepos() {}

  /** Writes {@code count} repository records named {@code r0000}, {@code r0001}, … */
  static List<Repo> create(URI pds, Account owner, int count) throws IOException {
    XrpcClient client = XrpcClient.create(pds);
    client.login(owner.handle(), owner.password());
    List<Repo> out = new ArrayList<>();
    List<Write> batch = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Repo r = new Repo(String.format("r%04d", i), Tid.next());
      ObjectNode v = JsonNodeFactory.instance.objectNode();
      v.put("key", r.key());
      v.put("defaultBranch", "main");
      v.put("createdAt", "2026-11-29T10:00:00.000Z");
      batch.add(Write.create("dev.knotless.repo", r.name(), v));
      out.add(r);
      if (batch.size() == XrpcClient.MAX_WRITES || i == count - 1) {
        client.applyWrites(owner.did(), batch);
        batch = new ArrayList<>();
      }
    }
    return out;
  }
}
