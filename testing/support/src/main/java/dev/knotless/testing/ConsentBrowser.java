package dev.knotless.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * A real headless browser (Debian's chromium, through chromium-driver and Selenium) that does what
 * a person does on the reference PDS's own OAuth pages: signs in with the account's password and
 * accepts, or refuses, the request. {@code testing/browser/chromium.sh} installs the packages when
 * missing. Chromium runs with {@code --headless=new}, and with {@code --no-sandbox} because its
 * sandbox refuses to start as root. Not thread-safe; close it to end the browser.
 */
public final class ConsentBrowser implements AutoCloseable {
  private static final Duration WAIT = Duration.ofSeconds(30);

  private final WebDriver driver;

  private ConsentBrowser(WebDriver driver) {
    this.driver = driver;
  }

  /** Installs chromium if needed and starts it. */
  public static ConsentBrowser start() {
    Path script = PdsLauncher.repoRoot().resolve("testing/browser/chromium.sh");
    String driverPath;
    try {
      Process p =
          new ProcessBuilder(script.toString())
              .redirectError(ProcessBuilder.Redirect.INHERIT)
              .redirectInput(ProcessBuilder.Redirect.from(PdsLauncher.nullFile()))
              .start();
      driverPath = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (p.waitFor() != 0 || driverPath.isEmpty()) {
        throw new IllegalStateException(script + " could not install chromium and chromium-driver");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    ChromeOptions options = new ChromeOptions();
    options.setBinary("/usr/bin/chromium");
    options.addArguments(
        "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1200,1000");
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(Path.of(driverPath).toFile())
            .usingAnyFreePort()
            .build();
    return new ConsentBrowser(new ChromeDriver(service, options));
  }

  /**
   * Opens {@code authorizeUrl}, signs in with {@code password} and accepts the request; returns
   * once the browser has been sent to an address starting with {@code redirectPrefix}.
   */
  public void consent(URI authorizeUrl, String password, String redirectPrefix) {
    signIn(authorizeUrl, password);
    click(List.of("Authorize", "Accept", "Allow"));
    new WebDriverWait(driver, WAIT)
        .withMessage(() -> "no redirect after consent; the page says: " + text())
        .until(d -> d.getCurrentUrl().startsWith(redirectPrefix));
  }

  /** Opens {@code authorizeUrl}, signs in and refuses the request. */
  public void refuse(URI authorizeUrl, String password, String redirectPrefix) {
    signIn(authorizeUrl, password);
    click(List.of("Deny access", "Deny", "Decline", "Reject", "Cancel"));
    new WebDriverWait(driver, WAIT)
        .withMessage(() -> "no redirect after refusing; the page says: " + text())
        .until(d -> d.getCurrentUrl().startsWith(redirectPrefix));
  }

  /** Opens {@code url} and returns the text it shows once it has some. */
  public String open(URI url) {
    driver.get(url.toString());
    new WebDriverWait(driver, WAIT).until(d -> !text().isBlank());
    return text();
  }

  /** The text the page shows. */
  public String text() {
    try {
      return driver.findElement(By.tagName("body")).getText();
    } catch (RuntimeException e) {
      return "";
    }
  }

  private void signIn(URI authorizeUrl, String password) {
    driver.get(authorizeUrl.toString());
    WebElement field =
        new WebDriverWait(driver, WAIT)
            .withMessage(() -> "no password field; the page says: " + text())
            .until(d -> first(d.findElements(By.cssSelector("input[type=password]"))));
    field.sendKeys(password);
    WebElement submit = first(driver.findElements(By.cssSelector("form button[type=submit]")));
    if (submit == null) {
      click(List.of("Sign in", "Next", "Continue"));
    } else {
      submit.click();
    }
  }

  private void click(List<String> labels) {
    WebElement button =
        new WebDriverWait(driver, WAIT)
            .withMessage(() -> "no button named any of " + labels + "; the page says: " + text())
            .until(
                d -> {
                  for (WebElement b : d.findElements(By.cssSelector("button"))) {
                    String t = b.getText().strip();
                    if (b.isDisplayed() && b.isEnabled() && labels.contains(t)) {
                      return b;
                    }
                  }
                  return null;
                });
    button.click();
  }

  private static WebElement first(List<WebElement> found) {
    for (WebElement e : found) {
      if (e.isDisplayed()) {
        return e;
      }
    }
    return null;
  }

  @Override
  public void close() {
    driver.quit();
  }
}
