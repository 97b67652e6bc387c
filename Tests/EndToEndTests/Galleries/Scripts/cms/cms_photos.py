"""The 25 real photographs the CMS fixtures are filled with, from two Debian wallpaper packages:
mate-backgrounds (12 nature photos, four with the camera's EXIF) and lomiri-wallpapers-16.04
(13 photos, most larger than 2,560 px, so WordPress also writes its `-scaled` copy).

Each photo has a file name (as uploaded), a title (WordPress's attachment title, MediaWiki's file
name), a caption and alt text that differ from the title and from every post title, so a test can
tell which of them the mirror took.
"""
import os

MATE = "/usr/share/backgrounds/mate/nature"
LOMIRI = "/usr/share/backgrounds"

# (source file, upload name, title, caption, alt text)
PHOTOS = [
    (f"{MATE}/Aqua.jpg", "aqua.jpg", "Drop into still water", "A single drop lands in a blue bowl",
     "Water drop splashing"),
    (f"{MATE}/Blinds.jpg", "blinds.jpg", "Leaf veins in backlight", "Sunlight through a hosta leaf",
     "Green leaf with parallel veins"),
    (f"{MATE}/Dune.jpg", "dune.jpg", "Dune grass by the sea", "Marram grass on the dunes in August",
     "Dry grass against the sea"),
    (f"{MATE}/FreshFlower.jpg", "fresh-flower.jpg", "Orange gerbera", "A gerbera opened this morning",
     "Orange petals close up"),
    (f"{MATE}/Garden.jpg", "garden.jpg", "Red lily in the garden", "The lily by the back fence",
     "Red lily with yellow stamens"),
    (f"{MATE}/GreenMeadow.jpg", "green-meadow.jpg", "Fresh grass blades", "New grass after the rain",
     "Dense green grass"),
    (f"{MATE}/LadyBird.jpg", "ladybird.jpg", "Ladybird on forget-me-nots", "A ladybird climbs a stem",
     "Ladybird among blue flowers"),
    (f"{MATE}/RainDrops.jpg", "raindrops.jpg", "Raindrops on a blade of grass", "Morning rain on the lawn",
     "Water drops on green leaves"),
    (f"{MATE}/Storm.jpg", "storm.jpg", "Storm over the motorway", "Clouds rolling in over the A7",
     "Dark storm clouds above a road"),
    (f"{MATE}/TwoWings.jpg", "two-wings.jpg", "Two dandelion seeds", "Seeds ready to fly",
     "Two dandelion seeds on orange"),
    (f"{MATE}/Wood.jpg", "wood.jpg", "Weathered planks", "Grain of an old garden table",
     "Pale wooden boards"),
    (f"{MATE}/YellowFlower.jpg", "yellow-flower.jpg", "Yellow daisy", "A daisy turned to the sun",
     "Yellow flower on black"),
    (f"{LOMIRI}/Bridge_by_Sander_Klootwijk.jpg", "bridge.jpg", "Cables over the beach",
     "Under the pier at low tide", "Steel cables against a blue sky"),
    (f"{LOMIRI}/Dragonfly_by_Bolly.jpg", "hazel-leaves.jpg", "Hazel leaves", "A hazel branch in June",
     "Green leaves against the sky"),
    (f"{LOMIRI}/Picture_0B_by_freespace.jpg", "fig.jpg", "Fig in a red bowl", "Half a fig for breakfast",
     "Cut fig in an orange dish"),
    (f"{LOMIRI}/Picture_1A_by_freespace.jpg", "brushes.jpg", "Paint brushes", "Brushes drying by the window",
     "Colourful paint brushes"),
    (f"{LOMIRI}/Wine_by_Jakkub_Mede.jpg", "wine.jpg", "Wine by the fire", "A bottle opened on the hearth",
     "Wine bottle in a living room"),
    (f"{LOMIRI}/aitzgorri_by_Aitzol_Berasategi.jpg", "aitzgorri.jpg", "Aitzgorri in autumn",
     "Beech woods below the ridge", "Mountain ridge above autumn trees"),
    (f"{LOMIRI}/free_by_Peter_Nerlich.jpg", "hummingbird-lamp.jpg", "Hummingbird under the lamp",
     "A toy bird hangs from the light", "Toy hummingbird below a lamp"),
    (f"{LOMIRI}/friends_by_Aitzol_Berasategi.jpg", "friends.jpg", "Two dogs at the door",
     "Waiting for the walk", "Two brown dogs in a doorway"),
    (f"{LOMIRI}/greentock_by_Peter_Nerlich.jpg", "wall-clock.jpg", "Wall clock", "Ten past ten",
     "White clock with gold hands"),
    (f"{LOMIRI}/life_by_Aitzol_Berasategi.jpg", "forest-stream.jpg", "Stream in the forest",
     "Water over mossy rocks", "Small stream between trees"),
    (f"{LOMIRI}/picosdeeuropa_by_Aitzol_Berasategi.jpg", "picos-de-europa.jpg", "Picos de Europa",
     "The path to the high pastures", "Mountain path under rocky peaks"),
    (f"{LOMIRI}/seeding_by_Clements_Engelhardt.jpg", "dandelion-clocks.jpg", "Dandelion clocks",
     "Seed heads at sunset", "Dandelion seed heads in a meadow"),
    (f"{LOMIRI}/sunset_by_Aitzol_Berasategi.jpg", "sunset-ridge.jpg", "Sunset from the ridge",
     "The sun sets behind the cairn", "Sun low over a mountain ridge"),
]


def photos():
    """The photos as dicts (source, name, title, caption, alt, stem)."""
    return [{"source": source, "name": name, "title": title, "caption": caption, "alt": alt,
             "stem": os.path.splitext(name)[0]}
            for source, name, title, caption, alt in PHOTOS]


def missing():
    """The source files that are not installed (names the package to install)."""
    return [source for source, *_ in PHOTOS if not os.path.exists(source)]
