package dev.knotless.storage.cli;

import dev.knotless.atproto.AtUri;
import dev.knotless.atproto.Record;
import dev.knotless.atproto.Write;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.XrpcException;
import dev.knotless.atproto.space.SpaceClient;
import dev.knotless.atproto.space.SpaceId;
import dev.knotless.atproto.space.SpaceRecords;
import dev.knotless.storage.Lexicons;
import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.SpaceRedirects;
import dev.knotless.storage.records.RedirectRecord;
import java.io.IOException;
import java.util.List;

/**
 * {@code knotless repo rename} of a private repository, our reading of storage.md's redirect
 * carrying {@code space} ({@link SpaceRedirects}): the records stay in the space they live in,
 * where the repo record is renamed and the old name redirected exactly as for a public repository;
 * and, unless the new name is that space's own, the owner's space of the new name is made, with the
 * same members, holding one redirect under the new name whose {@code space} names the records'
 * space. A reader, a clone or a runner of the new name is then led there. Renamed back to a former
 * name, the space an earlier rename made for it (its redirect naming the records' space and the
 * repository's key) is taken back as it is, its members brought up to the records' space's, rather
 * than refused as a name taken. Stateless.
 */
final class PrivateRename {
  private PrivateRename() {}

  static void rename(
      RepoAddress from, String newName, SpaceRecords records, XrpcClient owner, CliContext ctx)
      throws IOException {
    SpaceClient spaces = records.client();
    SpaceId kept = records.space();
    RepoAddress to = from.renamed(newName);
    if (owner.findRecord(from.did(), Lexicons.REPO, newName).isPresent()
        || records.findRecord(from.did(), Lexicons.REPO, newName).isPresent()) {
      throw new IOException(to.url() + " already exists; nothing was changed");
    }
    Record repo =
        records
            .findRecord(from.did(), Lexicons.REPO, from.name())
            .orElseThrow(() -> new IOException(from.url() + " has no repo record in its space"));
    String key = repo.value().path("key").asText("");
    SpaceId named = SpaceRedirects.named(to);
    boolean made = false;
    boolean former = false;
    if (!named.equals(kept)) {
      try {
        spaces.createSpace(newName);
        made = true;
      } catch (XrpcException e) {
        if (!"SpaceAlreadyExists".equals(e.error())) {
          throw e;
        }
        // A former name of this repository: its space, made by an earlier rename, leads here
        // already, and is taken back rather than refused.
        former = leadsTo(spaces, named, from.did(), newName, key, kept);
        if (!former) {
          throw new IOException(to.url() + " already exists; nothing was changed", e);
        }
      }
    }
    try {
      if (former) {
        List<String> there = spaces.members(named);
        for (String member : spaces.members(kept)) {
          if (!member.equals(from.did()) && !there.contains(member)) {
            spaces.addMember(named, member);
          }
        }
      }
      if (made) {
        for (String member : spaces.members(kept)) {
          if (!member.equals(from.did())) {
            spaces.addMember(named, member);
          }
        }
        RedirectRecord pointer =
            new RedirectRecord(
                newName,
                new AtUri(from.did(), Lexicons.REPO, newName),
                key,
                kept.toString(),
                ctx.repos().clock().instant().toString());
        spaces.applyWrites(
            named, List.of(Write.create(Lexicons.REDIRECT, newName, pointer.toJson())));
      }
      spaces.applyWrites(
          kept,
          RenameCommand.writes(
              from, newName, repo, RenameCommand.redirects(records, from.did()), ctx));
    } catch (IOException | RuntimeException e) {
      if (made) {
        // Nothing of the rename stands: the space of the new name goes again.
        try {
          spaces.deleteSpace(named);
        } catch (IOException ignored) {
          e.addSuppressed(ignored);
        }
      }
      throw e;
    }
    ctx.out()
        .println(
            "renamed "
                + from.url()
                + " to "
                + to.url()
                + "; the old name redirects to it"
                + (made || former ? ", and its records stay in the space " + kept : ""));
  }

  /**
   * Whether the existing space {@code named} is one an earlier rename of this repository made: it
   * holds, under {@code name}, a redirect with the repository's {@code key} whose {@code space}
   * names the records' space {@code kept}.
   */
  private static boolean leadsTo(
      SpaceClient spaces, SpaceId named, String did, String name, String key, SpaceId kept)
      throws IOException {
    java.util.Optional<Record> r;
    try {
      r = spaces.getRecord(named, did, Lexicons.REDIRECT, name);
    } catch (XrpcException e) {
      return false; // not the owner's to read: not one of its renames
    }
    if (r.isEmpty()) {
      return false;
    }
    RedirectRecord redirect;
    try {
      redirect = RedirectRecord.parse(r.get().uri(), name, r.get().value());
    } catch (dev.knotless.storage.RecordFormatException e) {
      return false; // not a redirect this tool wrote
    }
    return key.equals(redirect.key()) && kept.toString().equals(redirect.space());
  }
}
