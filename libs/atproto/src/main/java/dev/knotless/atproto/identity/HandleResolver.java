package dev.knotless.atproto.identity;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.ServiceAddresses;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import javax.naming.Context;
import javax.naming.NameNotFoundException;
import javax.naming.NamingEnumeration;
import javax.naming.NamingException;
import javax.naming.directory.Attribute;
import javax.naming.directory.Attributes;
import javax.naming.directory.DirContext;
import javax.naming.directory.InitialDirContext;

/**
 * Resolves a handle to the DID it claims, without checking the DID's document (that is {@link
 * IdentityResolver}'s job).
 *
 * <p>With {@code KNOTLESS_HANDLE_RESOLVER=<url>} set, the server there answers every handle ({@code
 * com.atproto.identity.resolveHandle}); the test PDS's {@code .test} handles need that, as no DNS
 * knows them. Otherwise a DNS TXT record {@code _atproto.<handle>} holding {@code did=<did>}
 * decides, and without one, {@code https://<handle>/.well-known/atproto-did}, whose whole body
 * (trimmed) must be the DID. That server must answer itself: a redirect is refused, not followed,
 * and so is a reply over {@code Fetch.MAX_BYTES}. Thread-safe.
 */
public final class HandleResolver {
  /** Looks up the TXT strings of a DNS name; empty when the name has none. */
  @FunctionalInterface
  public interface TxtLookup {
    List<String> txt(String name) throws IdentityException;
  }

  private final URI override;
  private final HttpClient http;
  private final TxtLookup dns;
  private final ServiceAddresses addresses;

  /**
   * @param override the server to ask for every handle, or null for DNS and HTTPS
   */
  public HandleResolver(URI override, HttpClient http, TxtLookup dns) {
    this(override, http, dns, ServiceAddresses.process());
  }

  /**
   * @param override the server to ask for every handle, or null for DNS and HTTPS
   * @param addresses the servers that may be asked
   */
  public HandleResolver(URI override, HttpClient http, TxtLookup dns, ServiceAddresses addresses) {
    this.override = override;
    this.http = http;
    this.dns = dns;
    this.addresses = addresses;
  }

  /** A resolver configured from the environment ({@code KNOTLESS_HANDLE_RESOLVER}). */
  public static HandleResolver fromEnvironment(Map<String, String> env, HttpClient http) {
    String url = env.getOrDefault("KNOTLESS_HANDLE_RESOLVER", "").trim();
    return new HandleResolver(
        url.isEmpty() ? null : URI.create(url),
        http,
        HandleResolver::jndiTxt,
        ServiceAddresses.fromEnvironment(env));
  }

  /**
   * The DID {@code handle} claims.
   *
   * @throws IllegalArgumentException if {@code handle} is no valid handle
   * @throws IdentityException if nothing names a DID for it, or what does is malformed
   */
  public String resolve(String handle) throws IdentityException {
    String h = Identifiers.handle(handle);
    if (override != null) {
      return viaServer(h);
    }
    List<String> dids = new ArrayList<>();
    for (String txt : dns.txt("_atproto." + h)) {
      if (txt.startsWith("did=")) {
        dids.add(txt.substring("did=".length()).trim());
      }
    }
    if (dids.size() > 1 && dids.stream().distinct().count() > 1) {
      throw new IdentityException(
          "handle " + h + " has several different _atproto DNS records: " + dids);
    }
    if (!dids.isEmpty()) {
      return checked(h, dids.get(0), "its _atproto DNS record");
    }
    URI wellKnown = URI.create("https://" + h + "/.well-known/atproto-did");
    HttpResponse<String> response =
        Fetch.get(http, addresses, wellKnown, "text/plain", "resolve the handle " + h);
    int status = response.statusCode();
    if (status >= 300 && status < 400) {
      // A handle's host answers for itself: being sent elsewhere is no answer.
      throw new IdentityException(
          "handle "
              + h
              + " does not resolve: no _atproto DNS record, and "
              + wellKnown
              + " answered "
              + status
              + " (a redirect to "
              + response.headers().firstValue("Location").orElse("nowhere")
              + "), which is not followed");
    }
    if (status != 200) {
      throw new IdentityException(
          "handle "
              + h
              + " does not resolve: no _atproto DNS record, and "
              + wellKnown
              + " answered "
              + status);
    }
    return checked(h, response.body().trim(), wellKnown.toString());
  }

  private String viaServer(String h) throws IdentityException {
    URI uri =
        Fetch.under(
            override,
            "/xrpc/com.atproto.identity.resolveHandle?handle="
                + URLEncoder.encode(h, StandardCharsets.UTF_8));
    String purpose = "resolve the handle " + h;
    HttpResponse<String> response = Fetch.get(http, addresses, uri, "application/json", purpose);
    JsonNode body = Fetch.json(response, purpose);
    if (response.statusCode() != 200) {
      throw new IdentityException(
          "handle "
              + h
              + " does not resolve at "
              + override
              + ": "
              + response.statusCode()
              + " "
              + body.path("error").asText("")
              + " "
              + body.path("message").asText(""));
    }
    return checked(h, body.path("did").asText(""), override.toString());
  }

  private static String checked(String handle, String did, String source) throws IdentityException {
    try {
      return Identifiers.did(did);
    } catch (IllegalArgumentException e) {
      throw new IdentityException(
          "handle " + handle + " names a malformed DID in " + source + ": " + e.getMessage());
    }
  }

  /** TXT lookup through the JDK's JNDI DNS provider and the system's resolvers. */
  static List<String> jndiTxt(String name) throws IdentityException {
    Hashtable<String, String> env = new Hashtable<>();
    env.put(Context.INITIAL_CONTEXT_FACTORY, "com.sun.jndi.dns.DnsContextFactory");
    env.put("com.sun.jndi.dns.timeout.initial", "2000");
    env.put("com.sun.jndi.dns.timeout.retries", "2");
    List<String> out = new ArrayList<>();
    try {
      DirContext context = new InitialDirContext(env);
      try {
        Attributes attributes = context.getAttributes(name, new String[] {"TXT"});
        Attribute txt = attributes.get("TXT");
        if (txt == null) {
          return out;
        }
        NamingEnumeration<?> values = txt.getAll();
        while (values.hasMore()) {
          out.add(unquote(String.valueOf(values.next())));
        }
      } finally {
        context.close();
      }
    } catch (NameNotFoundException e) {
      return out;
    } catch (NamingException e) {
      // An unreachable DNS server is no answer: the HTTPS method may still work.
      return out;
    }
    return out;
  }

  /** JNDI returns a TXT record's strings quoted and space-joined; a DID has no spaces. */
  private static String unquote(String txt) {
    return txt.replace("\" \"", "").replace("\"", "").trim();
  }
}
