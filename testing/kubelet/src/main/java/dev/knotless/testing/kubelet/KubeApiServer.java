package dev.knotless.testing.kubelet;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Fabric8 mock API server in CRUD mode on 127.0.0.1, with the one subresource CRUD mode lacks
 * and the pod executor uses, {@code pods/exec}, served by a {@link TestKubelet}, and the field
 * selectors on events' {@code involvedObject} a real API server takes ({@link EventSelector}).
 * Everything else (create, get, list, watch, delete, status) is the mock's own. It records every
 * request path, and when it came, so a test can see that nothing but the API was used and a
 * benchmark can see when a pod was made, started and exec'd into. Start it, then {@link #kubelet}
 * it.
 */
public final class KubeApiServer implements AutoCloseable {

  private static final Pattern EXEC =
      Pattern.compile("/api/v1/namespaces/([^/]+)/pods/([^/]+)/exec\\?(.*)");

  private final KubernetesMockServer server;
  private final List<Request> paths = new CopyOnWriteArrayList<>();
  private volatile TestKubelet kubelet;

  private KubeApiServer() {
    KubernetesCrudDispatcher crud = new KubernetesCrudDispatcher();
    Dispatcher dispatcher =
        new Dispatcher() {
          @Override
          public MockResponse dispatch(RecordedRequest request) {
            long now = System.nanoTime();
            paths.add(new Request(now, request.getMethod() + " " + request.getPath()));
            Matcher m = EXEC.matcher(request.getPath());
            if (m.matches() && kubelet != null) {
              return kubelet.exec(m.group(1), m.group(2), m.group(3), now);
            }
            MockResponse events = EventSelector.dispatch(request, crud);
            return events != null ? events : crud.dispatch(request);
          }
        };
    server =
        new KubernetesMockServer(
            new Context(), new MockWebServer(), new HashMap<>(), dispatcher, false);
  }

  /** Starts a server on a free port of 127.0.0.1. */
  public static KubeApiServer start() {
    KubeApiServer s = new KubeApiServer();
    s.server.init(InetAddress.getLoopbackAddress(), 0);
    return s;
  }

  /** Lets {@code kubelet} serve exec; called by {@link TestKubelet#start}. */
  void attach(TestKubelet kubelet) {
    this.kubelet = kubelet;
  }

  /** A client of the server, in {@code namespace}, sending {@code token} as its bearer token. */
  public KubernetesClient client(String namespace, String token) {
    Config config =
        new ConfigBuilder(Config.empty())
            .withMasterUrl(url())
            .withNamespace(namespace)
            .withOauthToken(token)
            .withTrustCerts(true)
            .build();
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  /** The server's address. */
  public String url() {
    return "http://127.0.0.1:" + server.getPort();
  }

  /** A request as it came: {@link System#nanoTime()} on its arrival, and {@code METHOD path}. */
  public record Request(long nanos, String line) {}

  /** Every request so far, as {@code METHOD path}. */
  public List<String> requests() {
    return paths.stream().map(Request::line).toList();
  }

  /** Every request so far, in the order they came, with when each came. */
  public List<Request> timedRequests() {
    return List.copyOf(paths);
  }

  @Override
  public void close() {
    server.destroy();
  }
}
