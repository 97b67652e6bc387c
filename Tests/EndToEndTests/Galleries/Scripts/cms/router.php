<?php
/*
 * The router of PHP's built-in web server (`php -S 127.0.0.1:PORT router.php`) for the CMS
 * fixtures: what Apache with Debian's configuration and the application's rewrite rules does.
 *
 * - Static files are served as Apache serves them: Content-Type by extension, Last-Modified, an
 *   ETag, 304 to a conditional request, HEAD (the built-in server sends neither validator).
 * - WordPress (CMS_APP=wordpress): files of the private document root CMS_DOCROOT; any other
 *   path goes to its index.php (the rules of WordPress's .htaccess for pretty permalinks).
 * - MediaWiki (CMS_APP=mediawiki): /wiki/Title is index.php ($wgArticlePath = "/wiki/$1"), the
 *   entry points and skins come from Debian's tree, /images/ from the wiki's private upload
 *   directory CMS_IMAGES, where no PHP runs.
 */

$path = rawurldecode( parse_url( $_SERVER['REQUEST_URI'], PHP_URL_PATH ) ?? '/' );
if ( str_contains( $path, "\0" ) || preg_match( '#(^|/)\.\.(/|$)#', $path ) ) {
	http_response_code( 400 );
	return true;
}

if ( getenv( 'CMS_APP' ) === 'mediawiki' ) {
	route_mediawiki( $path );
} else {
	route_wordpress( $path );
}
return true;

function route_wordpress( $path ) {
	$docroot = getenv( 'CMS_DOCROOT' );
	$file    = $docroot . $path;
	if ( is_dir( $file ) && is_file( rtrim( $file, '/' ) . '/index.php' ) && ! str_starts_with( $path, '/wp-content/uploads' ) ) {
		if ( ! str_ends_with( $path, '/' ) ) {
			header( 'Location: ' . $path . '/', true, 301 );
			return;
		}
		$file .= 'index.php';
		$path .= 'index.php';
	}
	if ( is_file( $file ) ) {
		if ( str_ends_with( $file, '.php' ) ) {
			if ( str_starts_with( $path, '/wp-content/uploads/' ) ) {
				http_response_code( 403 );
				return;
			}
			run_php( $file, $path );
		} else {
			serve_static( $file );
		}
		return;
	}
	run_php( $docroot . '/index.php', '/index.php' );
}

function route_mediawiki( $path ) {
	$install = '/usr/share/mediawiki';
	if ( '/' === $path ) {
		// As a wiki's web server is commonly set up: the domain root goes to the main page.
		header( 'Location: /wiki/Main_Page', true, 301 );
		return;
	}
	if ( '/robots.txt' === $path ) {
		// As Wikipedia's robots.txt and MediaWiki's manual (Manual:Robots.txt) have it:
		// Special:Random redirects to a page chosen at random, so a crawl that followed it
		// would read a different page on every run (from Category:Photographs at --max-depth 1,
		// sometimes the gallery page and its captions).
		header( 'Content-Type: text/plain; charset=utf-8' );
		echo "User-agent: *\nDisallow: /wiki/Special:Random\nDisallow: /wiki/Special%3ARandom\n";
		return;
	}
	if ( str_starts_with( $path, '/wiki/' ) || '/wiki' === $path ) {
		run_php( "$install/index.php", '/index.php' );
		return;
	}
	if ( str_starts_with( $path, '/images/' ) ) {
		$file = getenv( 'CMS_IMAGES' ) . substr( $path, strlen( '/images' ) );
		if ( is_file( $file ) && ! preg_match( '/\.(php|phtml)$/', $file ) ) {
			serve_static( $file );
		} else {
			not_found();
		}
		return;
	}
	if ( preg_match( '#^/(index|load|api|rest|opensearch_desc|thumb|img_auth)\.php(/|$)#', $path, $entry ) ) {
		run_php( "$install/{$entry[1]}.php", "/{$entry[1]}.php" );
		return;
	}
	if ( preg_match( '#^/(resources|skins|extensions)/#', $path ) && is_file( $install . $path )
		&& ! str_ends_with( $path, '.php' ) ) {
		serve_static( $install . $path );
		return;
	}
	not_found();
}

/** Runs the PHP entry point FILE as the script at URL path SCRIPT. */
function run_php( $file, $script ) {
	$_SERVER['SCRIPT_FILENAME'] = $file;
	$_SERVER['SCRIPT_NAME']     = $script;
	$_SERVER['PHP_SELF']        = $script;
	chdir( dirname( $file ) );
	require $file;
}

function not_found() {
	http_response_code( 404 );
	header( 'Content-Type: text/html; charset=utf-8' );
	echo "<!DOCTYPE html>\n<title>404 Not Found</title><h1>Not Found</h1>\n";
}

/** Sends FILE as Apache would: type, length, validators, 304 for a matching conditional request. */
function serve_static( $file ) {
	$types = array(
		'jpg'   => 'image/jpeg',
		'jpeg'  => 'image/jpeg',
		'png'   => 'image/png',
		'gif'   => 'image/gif',
		'webp'  => 'image/webp',
		'svg'   => 'image/svg+xml',
		'ico'   => 'image/vnd.microsoft.icon',
		'css'   => 'text/css',
		'js'    => 'text/javascript',
		'json'  => 'application/json',
		'woff'  => 'font/woff',
		'woff2' => 'font/woff2',
		'ttf'   => 'font/ttf',
		'txt'   => 'text/plain',
		'html'  => 'text/html',
		'xml'   => 'application/xml',
	);
	$extension = strtolower( pathinfo( $file, PATHINFO_EXTENSION ) );
	$stat      = stat( $file );
	$etag      = sprintf( '"%x-%x"', $stat['size'], $stat['mtime'] );
	$modified  = gmdate( 'D, d M Y H:i:s', $stat['mtime'] ) . ' GMT';
	header( 'Content-Type: ' . ( $types[ $extension ] ?? 'application/octet-stream' ) );
	header( 'Last-Modified: ' . $modified );
	header( 'ETag: ' . $etag );
	header( 'Accept-Ranges: none' );
	$match = $_SERVER['HTTP_IF_NONE_MATCH'] ?? null;
	$since = $_SERVER['HTTP_IF_MODIFIED_SINCE'] ?? null;
	if ( null !== $match ? in_array( $etag, array_map( 'trim', explode( ',', $match ) ), true ) || '*' === trim( $match )
		: ( null !== $since && strtotime( $since ) >= $stat['mtime'] ) ) {
		http_response_code( 304 );
		return;
	}
	header( 'Content-Length: ' . $stat['size'] );
	if ( 'HEAD' !== $_SERVER['REQUEST_METHOD'] ) {
		readfile( $file );
	}
}
