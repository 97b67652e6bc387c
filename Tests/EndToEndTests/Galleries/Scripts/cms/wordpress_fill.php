<?php
/*
 * Installs and fills the WordPress fixture as its admin would, with WordPress's own functions and
 * no browser: run by wordpress.py with php-cli, in the private document root it laid out.
 *
 *   php wordpress_fill.php DOCROOT base SPEC.json OUT.json      install, upload the photos and the logo
 *   php wordpress_fill.php DOCROOT content SPEC.json OUT.json   theme, posts, galleries, comment
 *
 * SPEC.json (from wordpress.py): {"origin", "theme": "block"|"classic", "photos": [...], "posts": [...]}.
 * OUT.json: what was made (attachment IDs, every file and URL of each, the posts' permalinks),
 * from which wordpress.py writes the ground truth.
 */

if ( PHP_SAPI !== 'cli' ) {
	exit( 1 );
}
list( , $docroot, $mode, $spec_file, $out_file ) = $argv;
$spec   = json_decode( file_get_contents( $spec_file ), true );
$origin = parse_url( $spec['origin'] );
// WordPress reads the host of the request it serves; this is the one the site is built for.
$_SERVER['HTTP_HOST']   = $origin['host'] . ':' . $origin['port'];
$_SERVER['SERVER_NAME'] = $origin['host'];
$_SERVER['REQUEST_URI'] = '/';

if ( 'base' === $mode ) {
	define( 'WP_INSTALLING', true );
}
require $docroot . '/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
require_once ABSPATH . 'wp-admin/includes/image.php';
require_once ABSPATH . 'wp-admin/includes/media.php';
require_once ABSPATH . 'wp-admin/includes/file.php';

if ( 'base' === $mode ) {
	fill_base( $spec, $out_file );
} else {
	fill_content( $spec, $out_file );
}

/** The install and the media library: the slow part (every size of every photo), shared by both themes. */
function fill_base( $spec, $out_file ) {
	$result = wp_install( $spec['siteTitle'], 'editor', 'editor@example.invalid', true, '', 'fixture-password-not-secret' );
	$user   = $result['user_id'];
	wp_set_current_user( $user );
	update_option( 'siteurl', $spec['origin'] );
	update_option( 'home', $spec['origin'] );
	update_option( 'blogdescription', $spec['tagline'] );
	update_option( 'permalink_structure', '/%year%/%monthnum%/%day%/%postname%/' );
	update_option( 'timezone_string', 'Europe/Berlin' );
	update_option( 'default_comment_status', 'open' );
	update_option( 'uploads_use_yearmonth_folders', 1 );
	// The sample post and page of a fresh install are deleted, as most people do.
	wp_delete_post( 1, true );
	wp_delete_post( 2, true );

	$made = array( 'photos' => array() );
	foreach ( $spec['photos'] as $photo ) {
		$id = upload( $photo['source'], $photo['name'], $photo['uploaded'], $photo['title'] );
		wp_update_post(
			array(
				'ID'           => $id,
				'post_excerpt' => $photo['captioned'] ? $photo['caption'] : '',
				'post_content' => $photo['description'],
			)
		);
		if ( $photo['alted'] ) {
			update_post_meta( $id, '_wp_attachment_image_alt', $photo['alt'] );
		}
		$made['photos'][ $photo['name'] ] = $id;
	}
	$made['logo'] = upload( $spec['logo'], 'field-notes-logo.png', $spec['photos'][0]['uploaded'], 'Field Notes logo' );
	file_put_contents( $out_file, json_encode( $made, JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES ) );
}

/** Uploads FILE under the name NAME as the media library does (every registered size), dated DATE. */
function upload( $file, $name, $date, $title ) {
	$copy = wp_tempnam( $name );
	copy( $file, $copy );
	$id = media_handle_sideload(
		array(
			'name'     => $name,
			'tmp_name' => $copy,
		),
		0,
		$title,
		array(
			'post_date'     => $date,
			'post_date_gmt' => get_gmt_from_date( $date ),
		)
	);
	if ( is_wp_error( $id ) ) {
		fwrite( STDERR, "uploading $name: " . $id->get_error_message() . "\n" );
		exit( 1 );
	}
	return $id;
}

/** The theme, the posts (each photo attached to its post), the logo in the header and a comment. */
function fill_content( $spec, $out_file ) {
	$base = json_decode( file_get_contents( dirname( $out_file ) . '/base.json' ), true );
	$ids  = $base['photos'];
	wp_set_current_user( 1 );
	$block = 'block' === $spec['theme'];
	switch_theme( $block ? 'twentytwentythree' : 'twentytwentyone' );
	$logo = $base['logo'];
	// The logo, in the header of every page, and the site icon (favicons) made from it.
	update_option( 'site_icon', $logo );
	if ( $block ) {
		update_option( 'site_logo', $logo );
		// The header as the Site Editor saves it when a user adds the Site Logo block.
		$header = file_get_contents( get_theme_file_path( 'parts/header.html' ) );
		$header = str_replace( '<!-- wp:site-title {"level":0} /-->', '<!-- wp:group {"layout":{"type":"flex"}} --><div class="wp-block-group"><!-- wp:site-logo {"width":48} /--><!-- wp:site-title {"level":0} /--></div><!-- /wp:group -->', $header );
		$part   = wp_insert_post(
			array(
				'post_type'    => 'wp_template_part',
				'post_name'    => 'header',
				'post_title'   => 'Header',
				'post_status'  => 'publish',
				'post_content' => $header,
				'tax_input'    => array(
					'wp_theme'              => array( 'twentytwentythree' ),
					'wp_template_part_area' => array( 'header' ),
				),
			)
		);
		wp_set_object_terms( $part, 'twentytwentythree', 'wp_theme' );
		wp_set_object_terms( $part, 'header', 'wp_template_part_area' );
	} else {
		set_theme_mod( 'custom_logo', $logo );
	}

	$made = array(
		'posts'       => array(),
		'attachments' => array(),
		'logo'        => attachment_files( $logo ),
	);
	foreach ( $spec['posts'] as $post ) {
		$id = wp_insert_post(
			array(
				'post_title'     => $post['title'],
				'post_name'      => $post['slug'],
				'post_status'    => 'publish',
				'post_date'      => $post['date'],
				'post_author'    => 1,
				'comment_status' => 'open',
				'post_content'   => '',
			)
		);
		$photos = array_map(
			function ( $name ) use ( $ids ) {
				return $ids[ $name ];
			},
			$post['photos']
		);
		foreach ( $photos as $photo ) {
			wp_update_post(
				array(
					'ID'          => $photo,
					'post_parent' => $id,
				)
			);
		}
		$content = render_content( $post, $photos, $block );
		wp_update_post(
			array(
				'ID'           => $id,
				'post_content' => $content,
			)
		);
		if ( 'featured' === $post['kind'] ) {
			set_post_thumbnail( $id, $photos[0] );
		}
		if ( ! empty( $post['comment'] ) ) {
			wp_insert_comment(
				array(
					'comment_post_ID'      => $id,
					'comment_author'       => 'Ana',
					'comment_author_email' => 'ana@example.invalid',
					'comment_content'      => $post['comment'],
					'comment_approved'     => 1,
					'comment_date'         => $post['date'],
				)
			);
		}
		$made['posts'][ $post['slug'] ] = array(
			'id'        => $id,
			'permalink' => get_permalink( $id ),
		);
		foreach ( $photos as $photo ) {
			$made['attachments'][ pathinfo( wp_get_original_image_path( $photo ), PATHINFO_FILENAME ) ] = array(
				'id'         => $photo,
				'post'       => $post['slug'],
				'page'       => get_attachment_link( $photo ),
				'title'      => get_the_title( $photo ),
				'caption'    => wp_get_attachment_caption( $photo ),
				'alt'        => get_post_meta( $photo, '_wp_attachment_image_alt', true ),
				'files'      => attachment_files( $photo ),
			);
		}
	}
	// A page in the navigation, as most blogs have.
	wp_insert_post(
		array(
			'post_type'    => 'page',
			'post_title'   => 'About',
			'post_name'    => 'about',
			'post_status'  => 'publish',
			'post_content' => "<!-- wp:paragraph -->\n<p>Notes and photographs from walks near home.</p>\n<!-- /wp:paragraph -->",
		)
	);
	flush_rewrite_rules( false );
	file_put_contents( $out_file, json_encode( $made, JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES ) );
}

/** Every URL WordPress made for attachment ID: the URL it links as the file, each size, the unscaled original. */
function attachment_files( $id ) {
	$meta  = wp_get_attachment_metadata( $id );
	$url   = wp_get_attachment_url( $id );
	$dir   = dirname( $url );
	$sizes = array();
	foreach ( $meta['sizes'] as $size => $info ) {
		$sizes[ $size ] = array(
			'url'    => $dir . '/' . $info['file'],
			'width'  => $info['width'],
			'height' => $info['height'],
		);
	}
	return array(
		'url'      => $url,
		'width'    => $meta['width'],
		'height'   => $meta['height'],
		'sizes'    => $sizes,
		'original' => empty( $meta['original_image'] ) ? null : $dir . '/' . $meta['original_image'],
	);
}

/** The post's content as the block editor (block theme) or the classic editor (classic theme) saves it. */
function render_content( $post, $photos, $block ) {
	$intro = $post['intro'];
	$html  = $block ? "<!-- wp:paragraph -->\n<p>$intro</p>\n<!-- /wp:paragraph -->\n\n" : "$intro\n\n";
	switch ( $post['kind'] ) {
		case 'gallery-media':
			$html .= $block ? gallery_block( $photos, 'media', 'large' ) : '[gallery link="file" size="medium" columns="3" ids="' . implode( ',', $photos ) . '"]';
			break;
		case 'gallery-attachment':
			$html .= $block ? gallery_block( $photos, 'attachment', 'thumbnail' ) : '[gallery size="thumbnail" columns="4" ids="' . implode( ',', $photos ) . '"]';
			break;
		case 'single':
		case 'essay':
			foreach ( $photos as $index => $photo ) {
				// One single-image post links nowhere: its original (at most 2,048 px wide) is in the srcset only.
				$link  = empty( $post['unlinked'] ) ? 'media' : 'none';
				$html .= $block ? image_block( $photo, $link, 'large', true ) : caption_shortcode( $photo, $link );
				if ( 'essay' === $post['kind'] ) {
					$html .= $block ? "\n\n<!-- wp:paragraph -->\n<p>{$post['between'][$index]}</p>\n<!-- /wp:paragraph -->\n\n" : "\n\n{$post['between'][$index]}\n\n";
				}
			}
			break;
		case 'featured':
			break;
	}
	if ( ! empty( $post['outro'] ) ) {
		$html .= $block ? "\n\n<!-- wp:paragraph -->\n<p>{$post['outro']}</p>\n<!-- /wp:paragraph -->" : "\n\n{$post['outro']}";
	}
	return $html;
}

/** A Gallery block of PHOTOS, each linking to LINK ("media" or "attachment"), shown at SIZE. */
function gallery_block( $photos, $link, $size ) {
	$inner = '';
	foreach ( $photos as $photo ) {
		$inner .= image_block( $photo, $link, $size, 'media' === $link ) . "\n\n";
	}
	$attributes = wp_json_encode(
		array(
			'linkTo'   => $link,
			'sizeSlug' => $size,
		)
	);
	return "<!-- wp:gallery $attributes -->\n<figure class=\"wp-block-gallery has-nested-images columns-default is-cropped\">$inner</figure>\n<!-- /wp:gallery -->";
}

/** An Image block as the editor saves it: the size's URL, the link, the caption when CAPTIONED. */
function image_block( $photo, $link, $size, $captioned ) {
	$src     = wp_get_attachment_image_src( $photo, $size )[0];
	$alt     = esc_attr( get_post_meta( $photo, '_wp_attachment_image_alt', true ) );
	$caption = wp_get_attachment_caption( $photo );
	$attrs   = array(
		'id'              => $photo,
		'sizeSlug'        => $size,
		'linkDestination' => $link,
	);
	$img     = "<img src=\"$src\" alt=\"$alt\" class=\"wp-image-$photo\"/>";
	if ( 'media' === $link ) {
		$img = '<a href="' . wp_get_attachment_url( $photo ) . "\">$img</a>";
	} elseif ( 'attachment' === $link ) {
		$img = '<a href="' . get_attachment_link( $photo ) . "\">$img</a>";
	}
	$figcaption = $captioned && $caption ? '<figcaption class="wp-element-caption">' . esc_html( $caption ) . '</figcaption>' : '';
	return '<!-- wp:image ' . wp_json_encode( $attrs ) . " -->\n<figure class=\"wp-block-image size-$size\">$img$figcaption</figure>\n<!-- /wp:image -->";
}

/** An image as the classic editor inserts it: in a [caption] shortcode, linked to its file (or not). */
function caption_shortcode( $photo, $link ) {
	$size    = 'none' === $link ? 'full' : 'large';
	list( $src, $width, $height ) = wp_get_attachment_image_src( $photo, $size );
	$alt     = esc_attr( get_post_meta( $photo, '_wp_attachment_image_alt', true ) );
	$caption = esc_html( wp_get_attachment_caption( $photo ) );
	$img     = "<img class=\"size-$size wp-image-$photo\" src=\"$src\" alt=\"$alt\" width=\"$width\" height=\"$height\" />";
	if ( 'media' === $link ) {
		$img = '<a href="' . wp_get_attachment_url( $photo ) . "\">$img</a>";
	}
	return "[caption id=\"attachment_$photo\" align=\"aligncenter\" width=\"$width\"]$img $caption" . '[/caption]';
}
