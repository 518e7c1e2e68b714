package dev.knotless.run.scheduler.adapter.kube;

import dev.knotless.run.scheduler.app.SchedulerConfig;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The one Fabric8 client: the pod's service account in a cluster, or the API server and token the
 * settings name.
 */
@ApplicationScoped
public class KubeClient {

  @Produces
  @Singleton
  KubernetesClient client(SchedulerConfig config) {
    Config base = Config.autoConfigure(null);
    ConfigBuilder b = new ConfigBuilder(base).withNamespace(config.namespace());
    config.apiServer().ifPresent(b::withMasterUrl);
    config.apiToken().ifPresent(b::withOauthToken);
    return new KubernetesClientBuilder().withConfig(b.build()).build();
  }

  void close(@Disposes KubernetesClient client) {
    client.close();
  }
}
